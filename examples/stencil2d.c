// One Jacobi sweep of the 5-point Laplace stencil over the interior of an n x m grid
// (row-major C99 array parameters); the border of out is left untouched.
void jacobi2d(int n, int m, const double in[n][m], double out[n][m]) {
#pragma omp parallel for collapse(2)
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < m - 1; j++)
      out[i][j] = 0.25 * (in[i - 1][j] + in[i + 1][j] + in[i][j - 1] + in[i][j + 1]);
}
