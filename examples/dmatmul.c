// examples/matmul.c in double precision (DGEMM): A (m x n) += B (m x p) * C (p x n), column-major.
void dmatmul(double *A, const double *B, const double *C, int m, int n, int p) {
#pragma omp parallel for collapse(2)
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++)
      for (int k = 0; k < p; k++)
        A[i + j * m] += B[i + k * m] * C[k + j * p];
}
