// Row-major C = alpha * A * B^T + beta * C, B stored transposed (n x k, B[j*k + l]).
void dgemm_nt(int m, int n, int k, double alpha, double beta, const double *A, const double *B, double *C) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double acc = 0;
      for (int l = 0; l < k; l++)
        acc += A[i * k + l] * B[j * k + l];
      C[i * n + j] = alpha * acc + beta * C[i * n + j];
    }
}
