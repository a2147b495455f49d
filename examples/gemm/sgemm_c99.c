// Row-major C = alpha * A * B + beta * C on C99 variably modified arrays (A[i][l]).
void sgemm_c99(int m, int n, int k, float alpha, float beta, const float A[m][k], const float B[k][n],
                 float C[m][n]) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      float acc = 0;
      for (int l = 0; l < k; l++)
        acc += A[i][l] * B[l][j];
      C[i][j] = alpha * acc + beta * C[i][j];
    }
}
