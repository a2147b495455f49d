// The AutoGPU paper's direct 2D convolution with a zero-padded input (column-major, as the paper):
// out is n x m, tmpl is t x t, in is (n + t - 1) x (m + t - 1) with the zeros already in place,
// so every output pixel reads a whole window and no bounds test is needed.
void conv2d(float *out, const float *in, const float *tmpl, int n, int m, int t) {
  int pn = n + t - 1; // rows of the padded input (its leading dimension)
#pragma omp parallel for collapse(2)
  for (int j = 0; j < m; j++)
    for (int i = 0; i < n; i++) {
      float sum = 0.0f;
      for (int v = 0; v < t; v++)
        for (int u = 0; u < t; u++)
          sum += in[(i + u) + (j + v) * pn] * tmpl[u + v * t];
      out[i + j * n] = sum;
    }
}
