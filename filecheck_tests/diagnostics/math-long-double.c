// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// The long double forms of <math.h> say which double function to call instead.
void f(double *a) {
  a[0] = sinl(a[1]);
}
// CHECK-NOT: Traceback
// CHECK: {{^.*}}math-long-double.c:4:10: error: 'sinl' computes in long double, which is not supported: call 'sin' (double)
// CHECK-NOT: Traceback
