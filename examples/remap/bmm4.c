/* A batch of na x nb small matrix products (a 4D tensor contraction): C[a][b] = A[a][b] B[a][b]
   for ni x nk times nk x nj blocks, row-major. The 4-deep nest over (a, b, i, j) has small inner
   extents (4 x 4 in the remap suite), which the 3D mapping covers with x and y while a whole
   a-row of batches runs serially in each thread; flat remapping gives every C element a thread.
   PyTorch: torch.matmul on (na, nb, ni, nk) x (na, nb, nk, nj). */
void bmm4(int na, int nb, int ni, int nj, int nk, const float A[na][nb][ni][nk],
          const float B[na][nb][nk][nj], float C[na][nb][ni][nj]) {
#pragma omp parallel for collapse(4)
  for (int a = 0; a < na; a++)
    for (int b = 0; b < nb; b++)
      for (int i = 0; i < ni; i++)
        for (int j = 0; j < nj; j++) {
          float acc = 0.0f;
          for (int k = 0; k < nk; k++)
            acc += A[a][b][i][k] * B[a][b][k][j];
          C[a][b][i][j] = acc;
        }
}
