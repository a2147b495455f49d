/* covariance (PolyBench/OpenMP style): column means, centring, then the symmetric product, with
   the running sum in a private scalar. */
void covariance(int m, int n, double float_n, double data[n][m], double cov[m][m],
                double mean[m]) {
  int i, j, k;
  double acc;
#pragma omp parallel for private(i)
  for (j = 0; j < m; j++) {
    mean[j] = 0.0;
    for (i = 0; i < n; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }
#pragma omp parallel for private(j)
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      data[i][j] -= mean[j];
#pragma omp parallel for private(j, k, acc)
  for (i = 0; i < m; i++)
    for (j = 0; j < m; j++) {
      acc = 0.0;
      for (k = 0; k < n; k++)
        acc += data[k][i] * data[k][j];
      cov[i][j] = acc / (float_n - 1.0);
    }
}
