// Column-major C (m x n) = alpha * A (m x k) * B (k x n) + beta * C (BLAS's own layout).
void sgemm_cm(int m, int n, int k, float alpha, float beta, const float *A, const float *B, float *C) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      float acc = 0;
      for (int l = 0; l < k; l++)
        acc += A[i + l * m] * B[l + j * k];
      C[i + j * m] = alpha * acc + beta * C[i + j * m];
    }
}
