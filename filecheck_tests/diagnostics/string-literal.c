// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(float *a) {
  a[0] = "one";
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}string-literal.c:3:10: error: string literals are not supported: kernels compute on numbers (pass them as parameters or #define constants)
// CHECK-NEXT: {{^  a\[0\] = "one";$}}
// CHECK-NEXT: {{^ {9}\^$}}
// CHECK-NOT: Traceback
