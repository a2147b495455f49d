// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(float *a) {
  a[0] = tanhf(a[1]);
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}unknown-function.c:3:10: error: call to undeclared function 'tanhf': the supported functions are ceil, ceilf, cos, cosf, exp, expf, fabs, fabsf, floor, floorf, fmax, fmaxf, fmin, fminf, log, logf, max, min, pow, powf, sin, sinf, sqrt, sqrtf
// CHECK-NEXT: {{^  a\[0\] = tanhf\(a\[1\]\);$}}
// CHECK-NEXT: {{^ {9}\^$}}
// CHECK-NOT: Traceback
