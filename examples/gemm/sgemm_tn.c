// Row-major C = alpha * A^T * B + beta * C, A stored transposed (k x m, A[l*m + i]).
void sgemm_tn(int m, int n, int k, float alpha, float beta, const float *A, const float *B, float *C) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      float acc = 0;
      for (int l = 0; l < k; l++)
        acc += A[l * m + i] * B[l * n + j];
      C[i * n + j] = alpha * acc + beta * C[i * n + j];
    }
}
