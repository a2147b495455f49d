// RUN: not autogpu-opt %s -p autogpu-optimize -t cuda 2>&1 | filecheck --strict-whitespace %s
// A time loop whose bound is computed from a float: the launch description has no floats.
void f(int n, float *x, float c) {
  for (int t = 0; t < (int)c; t++) {
#pragma omp parallel for
    for (int i = 0; i < n; i++)
      x[i] += 1;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}host-loop-bound-not-expressible.c:4:3: error: the bounds of this loop around kernels are computed with arith.fptosi (the value of the C expression at line 4:23), which the launch description cannot express (only integer + - * / % min max and casts, comparisons, && || !)
// CHECK-NEXT: {{^  for \(int t = 0; t < \(int\)c; t\+\+\) \{$}}
// CHECK-NEXT: {{^ {2}\^$}}
