// RUN: not autogpu-opt %s -p autogpu-vanilla -t cuda 2>&1 | filecheck --strict-whitespace %s
// The launch description computes sizes with integer arithmetic only: a bound converted from
// floating point is refused, at the C expression that converts it.
void f(int n, float *a, float w) {
  int m = (int)(w * 4.0f) + n;
#pragma omp parallel for
  for (long i = 0; i < m; i++)
    a[i] = 1.0f;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}parallel-bound-not-expressible.c:7:3: error: the bounds of this parallel loop are computed with arith.fptosi (the value of the C expression at line 5:11), which the launch description cannot express (only integer + - * / % min max and casts)
// CHECK-NEXT: {{^  for \(long i = 0; i < m; i\+\+\)$}}
// CHECK-NEXT: {{^ {2}\^$}}
// CHECK-NOT: Traceback
