// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// An `unsigned char` counter compared with an `int` bound: for n > 255, C wraps it from 255 to
// 0 and the loop never ends, so it is no canonical loop.
void f(int n, int *a) {
#pragma omp parallel for
  for (unsigned char i = 0; i < n; i++)
    a[i] = i;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}parallel-narrow-variable-unbounded.c:6:3: error: '#pragma omp parallel for' needs a canonical for loop, but this loop is not: its variable 'i' is a unsigned char, which C compares with the bound in int and wraps at each step, so the loop ends only if the bound is at most 255, but the bound has type 'int' (declare 'i' int, or the bound a type within that range)
// CHECK-NEXT: {{^  for \(unsigned char i = 0; i < n; i\+\+\)$}}
// CHECK-NEXT: {{^  \^$}}
