/* gemver (PolyBench/OpenMP style), with a dot product reduced into a result pointer. */
void gemver(int n, double alpha, double beta, double A[n][n], double u1[n], double v1[n],
            double u2[n], double v2[n], double w[n], double x[n], double y[n], double z[n],
            double *norm) {
  int i, j;
  double s = 0.0;
#pragma omp parallel for private(j) default(none) shared(n, A, u1, v1, u2, v2)
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
#pragma omp parallel for private(j) firstprivate(beta)
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      x[i] = x[i] + beta * A[j][i] * y[j];
#pragma omp parallel for simd
  for (i = 0; i < n; i++)
    x[i] = x[i] + z[i];
#pragma omp parallel for private(j) proc_bind(close)
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      w[i] = w[i] + alpha * A[i][j] * x[j];
#pragma omp parallel for reduction(+: s)
  for (i = 0; i < n; i++)
    s += w[i] * w[i];
  *norm = s;
}
