// Column sums of a row-major n x n matrix (torch.sum(A, dim=0)): a thread per column.
void colsum(const float *A, float *out, int n) {
#pragma omp parallel for
  for (int j = 0; j < n; j++) {
    float s = 0.0f;
    for (int i = 0; i < n; i++)
      s += A[(long long)i * n + j];
    out[j] = s;
  }
}
