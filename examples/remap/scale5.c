/* A 5D elementwise scale and shift, y = x * w + s with w and s broadcast over the first two
   dimensions (per-channel parameters of a batch of 3D blocks), row-major. The 5-deep nest is the
   issue's degenerate case at (1000, 1000, 1, 1, 1): the 3D mapping puts the three unit levels on
   the grid (one block) and runs 10^6 iterations in each of its threads. PyTorch:
   torch.addcmul(s, x, w, out=y). */
void scale5(int n0, int n1, int n2, int n3, int n4, const float x[n0][n1][n2][n3][n4],
            const float w[n2][n3][n4], const float s[n2][n3][n4], float y[n0][n1][n2][n3][n4]) {
#pragma omp parallel for collapse(5)
  for (int i0 = 0; i0 < n0; i0++)
    for (int i1 = 0; i1 < n1; i1++)
      for (int i2 = 0; i2 < n2; i2++)
        for (int i3 = 0; i3 < n3; i3++)
          for (int i4 = 0; i4 < n4; i4++)
            y[i0][i1][i2][i3][i4] = x[i0][i1][i2][i3][i4] * w[i2][i3][i4] + s[i2][i3][i4];
}
