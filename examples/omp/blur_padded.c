/* A 3x3 box blur of an image stored with a one-element border: the input's extents are
   expressions of the interior sizes (a C99 variably modified parameter), the loop variables
   are declared before the loops and listed private, as OpenMP benchmark suites write them. */
void blur_padded(int n, int m, const double in[n + 2][m + 2], double out[n][m]) {
  int i, j;
#pragma omp parallel for private(j)
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      out[i][j] = (in[i][j] + in[i][j + 1] + in[i][j + 2]
                   + in[i + 1][j] + in[i + 1][j + 1] + in[i + 1][j + 2]
                   + in[i + 2][j] + in[i + 2][j + 1] + in[i + 2][j + 2]) / 9.0;
}
