/* jacobi-2d's time loop as a GPU user writes it: examples/omp/jacobi_2d.c with both sweeps
   `collapse(2)`, so that each interior point is a thread (the omp/ version parallelises the
   rows only: a thread per row, its j loop serial, and consecutive threads read addresses n
   doubles apart). The time loop stays on the host: 2 * tsteps launches, the arrays on the
   device between them. */
void jacobi_2d(int tsteps, int n, double A[n][n], double B[n][n]) {
  for (int t = 0; t < tsteps; t++) {
#pragma omp parallel for collapse(2)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][1 + j] + A[1 + i][j] + A[i - 1][j]);
#pragma omp parallel for collapse(2)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][1 + j] + B[1 + i][j] + B[i - 1][j]);
  }
}
