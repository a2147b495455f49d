/* atax (PolyBench/OpenMP style): y = A^T (A x), loop variables declared before the loops. */
void atax(int m, int n, double A[m][n], double x[n], double y[n], double tmp[m]) {
  int i, j;
#pragma omp parallel for private(i)
  for (j = 0; j < n; j++)
    y[j] = 0;
#pragma omp parallel for private(j) schedule(static)
  for (i = 0; i < m; i++) {
    tmp[i] = 0.0;
    for (j = 0; j < n; j++)
      tmp[i] = tmp[i] + A[i][j] * x[j];
  }
#pragma omp parallel for private(i)
  for (j = 0; j < n; j++)
    for (i = 0; i < m; i++)
      y[j] = y[j] + A[i][j] * tmp[i];
}
