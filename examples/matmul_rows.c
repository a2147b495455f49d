// Row-major C = A B (C is n x m, A n x p, B p x m): rows of C are independent, so a part of
// rows needs its rows of A and C and all of B. The out-of-core benchmark runs it in parts
// (benchmarks/out_of_core.py, docs/out-of-core.md).
void mm(int n, int m, int p, const float A[n][p], const float B[p][m], float C[n][m]) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      float s = 0.0f;
      for (int k = 0; k < p; k++)
        s += A[i][k] * B[k][j];
      C[i][j] = s;
    }
}
