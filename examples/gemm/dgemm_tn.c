// Row-major C = alpha * A^T * B + beta * C, A stored transposed (k x m, A[l*m + i]).
void dgemm_tn(int m, int n, int k, double alpha, double beta, const double *A, const double *B, double *C) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double acc = 0;
      for (int l = 0; l < k; l++)
        acc += A[l * m + i] * B[l * n + j];
      C[i * n + j] = alpha * acc + beta * C[i * n + j];
    }
}
