/* jacobi-2d with its time loop (PolyBench/OpenMP style): each of the tsteps steps computes B
   from A, then A from B. The time loop stays on the host and launches both sweeps in each step
   (2 * tsteps kernels); the arrays stay on the device between them. */
void jacobi_2d(int tsteps, int n, double A[n][n], double B[n][n]) {
  int t, i, j;
  for (t = 0; t < tsteps; t++) {
#pragma omp parallel for private(j)
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][1 + j] + A[1 + i][j] + A[i - 1][j]);
#pragma omp parallel for private(j)
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][1 + j] + B[1 + i][j] + B[i - 1][j]);
  }
}
