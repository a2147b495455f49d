// Row-major C = alpha * A * B^T + beta * C, B stored transposed (n x k, B[j*k + l]).
void sgemm_nt(int m, int n, int k, float alpha, float beta, const float *A, const float *B, float *C) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      float acc = 0;
      for (int l = 0; l < k; l++)
        acc += A[i * k + l] * B[j * k + l];
      C[i * n + j] = alpha * acc + beta * C[i * n + j];
    }
}
