// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(float *a) {
  a[0] = tanhf(a[1]) + sinc(a[2]);
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}unknown-function.c:3:24: error: call to undeclared function 'sinc': the functions are those of <math.h> (in float and double forms: sqrtf, sqrt, ...), the classification macros isnan, isinf, isfinite and signbit, abs, labs, llabs, min and max (docs/c-subset.md)
// CHECK-NEXT: {{^  a\[0\] = tanhf\(a\[1\]\) \+ sinc\(a\[2\]\);$}}
// CHECK-NEXT: {{^ {23}\^$}}
// CHECK-NOT: Traceback
