// Column-major C (m x n) = alpha * A (m x k) * B (k x n) + beta * C (BLAS's own layout).
void dgemm_cm(int m, int n, int k, double alpha, double beta, const double *A, const double *B, double *C) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double acc = 0;
      for (int l = 0; l < k; l++)
        acc += A[i + l * m] * B[l + j * k];
      C[i + j * m] = alpha * acc + beta * C[i + j * m];
    }
}
