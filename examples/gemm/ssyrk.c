// SYRK, full C: C (n x n) = alpha * A * A^T + beta * C, A row-major n x k. Both operands of the
// product are rows of A: the same two-operand reuse as a GEMM, from one array.
void ssyrk(int m, int n, int k, float alpha, float beta, const float *A, float *C) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      float acc = 0;
      for (int l = 0; l < k; l++)
        acc += A[i * k + l] * A[j * k + l];
      C[i * n + j] = alpha * acc + beta * C[i * n + j];
    }
}
