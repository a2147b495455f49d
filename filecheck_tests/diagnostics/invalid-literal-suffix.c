// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(float *a) {
  a[0] = 17f;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}invalid-literal-suffix.c:3:12: error: invalid suffix 'f' on integer literal '17'
// CHECK-NEXT: {{^  a\[0\] = 17f;$}}
// CHECK-NEXT: {{^ {11}\^$}}
// CHECK-NOT: Traceback
