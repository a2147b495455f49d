// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
#define SQUARE(x) ((x) * (x))
void f(float *a) { a[0] = 1; }

// CHECK-NOT: Traceback
// CHECK: {{^.*}}function-like-macro.c:2:9: error: function-like macro 'SQUARE' is not supported: only object-like macros (#define NAME value) are; write the expression out or use a function
// CHECK-NEXT: {{^\#define SQUARE\(x\) \(\(x\) \* \(x\)\)$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
