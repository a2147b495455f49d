// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(float (*op)(float), float *a) {
  a[0] = 1;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}function-pointer.c:2:14: error: function pointer parameter 'op' is not supported: call the function directly (math functions only) or inline it
// CHECK-NEXT: {{^void f\(float \(\*op\)\(float\), float \*a\) \{$}}
// CHECK-NEXT: {{^ {13}\^$}}
// CHECK-NOT: Traceback
