// Row-major C = max(alpha * A * B + bias[j], 0): another element-wise tail fused into the tile
// store (one write of C, no read).
void sgemm_bias_relu(int m, int n, int k, float alpha, float beta, const float *A, const float *B,
                     const float *bias, float *C) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      float acc = 0;
      for (int l = 0; l < k; l++)
        acc += A[i * k + l] * B[l * n + j];
      float v = alpha * acc + beta * bias[j];
      C[i * n + j] = v > 0 ? v : 0;
    }
}
