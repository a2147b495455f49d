// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(float *a, float x, int n) {
  a[0] = x & n;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}bitwise-float.c:3:12: error: invalid operand of type 'float' to '&': it needs integers
// CHECK-NEXT: {{^  a\[0\] = x \& n;$}}
// CHECK-NEXT: {{^ {11}\^$}}
// CHECK-NOT: Traceback
