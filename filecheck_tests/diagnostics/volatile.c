// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(volatile float *a) { a[0] = 1; }

// CHECK-NOT: Traceback
// CHECK: {{^.*}}volatile.c:2:8: error: 'volatile' is not supported
// CHECK-NEXT: {{^void f\(volatile float \*a\) \{ a\[0\] = 1; \}$}}
// CHECK-NEXT: {{^ {7}\^$}}
// CHECK-NOT: Traceback
