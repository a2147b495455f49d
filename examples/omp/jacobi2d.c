/* One time step of jacobi-2d (PolyBench/OpenMP style): B from A, then A from B. (jacobi_2d.c
   has the time loop around them, which the host runs.) */
void jacobi2d(int n, double A[n][n], double B[n][n]) {
  int i, j;
#pragma omp parallel for private(j)
  for (i = 1; i < n - 1; i++)
    for (j = 1; j < n - 1; j++)
      B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][1 + j] + A[1 + i][j] + A[i - 1][j]);
#pragma omp parallel for private(j)
  for (i = 1; i < n - 1; i++)
    for (j = 1; j < n - 1; j++)
      A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][1 + j] + B[1 + i][j] + B[i - 1][j]);
}
