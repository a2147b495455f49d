// The AutoGPU paper's serial MATMUL, column-major: A (m x n) += B (m x p) * C (p x n).
// i walks a column (contiguous), so it is the loop mapped to threads; j goes to the grid.
void matmul(float *A, const float *B, const float *C, int m, int n, int p) {
#pragma omp parallel for collapse(2)
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++)
      for (int k = 0; k < p; k++)
        A[i + j * m] += B[i + k * m] * C[k + j * p];
}
