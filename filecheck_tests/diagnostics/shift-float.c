// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(float *a, int n) {
  a[0] <<= n;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}shift-float.c:3:8: error: invalid operand of type 'float' to '<<=': it needs integers
// CHECK-NEXT: {{^  a\[0\] <<= n;$}}
// CHECK-NEXT: {{^ {7}\^$}}
// CHECK-NOT: Traceback
