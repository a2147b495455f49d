/* jacobi-2d until it converges: examples/remap/jacobi_2d.c whose time loop stops when the
   largest change of a step is at most 1e-12, or after maxsteps steps. The condition reads
   `diff`, which the first sweep reduces on the device: the host reads it back once per step
   (a `while` of the launch description), the grids stay on the device. */
#include <math.h>

void jacobi_2d_converge(int maxsteps, int n, double A[n][n], double B[n][n], int *steps) {
  double diff = 1e30;
  int t;
  for (t = 0; t < maxsteps && diff > 1e-12; t++) {
    diff = 0.0;
#pragma omp parallel for collapse(2) reduction(max: diff)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++) {
        B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][1 + j] + A[1 + i][j] + A[i - 1][j]);
        diff = fmax(diff, fabs(B[i][j] - A[i][j]));
      }
#pragma omp parallel for collapse(2)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][1 + j] + B[1 + i][j] + B[i - 1][j]);
  }
  steps[0] = t;
}
