// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(long double x, double *out) { out[0] = x; }

// CHECK-NOT: Traceback
// CHECK: {{^.*}}long-double.c:2:8: error: 'long double' is not supported: use double
// CHECK-NEXT: {{^void f\(long double x, double \*out\) \{ out\[0\] = x; \}$}}
// CHECK-NEXT: {{^ {7}\^$}}
// CHECK-NOT: Traceback
