// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// The dependence check holds for the loops of a region as for parallel for (issue 18: y[j] +=
// A[i][j]*t[i] across a parallel i).
void f(int n, int m, float A[n][m], const float *t, float *y) {
#pragma omp parallel
  {
#pragma omp for
    for (int i = 0; i < n; i++)
      for (int j = 0; j < m; j++)
        y[j] += A[i][j] * t[i];
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-region-conflict.c:10:14: error: iterations of the parallel loop over 'i' conflict: 'y[j]' written here by the iteration with i = 0, j = 0 is read as 'y[j]' (line 10:14) by the iteration with i = 1, j = 0; the loop is not parallel
// CHECK-NEXT: {{^}}        y[j] += A[i][j] * t[i];{{$}}
// CHECK-NEXT: {{^ {13}\^$}}
// CHECK-NOT: Traceback
