// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// <math.h> functions that store a second result through a pointer are refused, saying why.
void f(double *a, int *e) {
  a[0] = frexp(a[1], e);
}
// CHECK-NOT: Traceback
// CHECK: {{^.*}}math-pointer-result.c:4:10: error: 'frexp' is not supported: it stores a second result through a pointer, which the subset has no way to do: use logb (or ilogb) and ldexp
// CHECK-NOT: Traceback
