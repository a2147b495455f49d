// RUN: autogpu-opt %s -p 'autogpu-vanilla{block_size=32},gpu-cache-shared{assume_no_alias=true},gpu-infer-nsw' -t cuda | filecheck %s

// C -> CUDA: the direct convolution with t = 3 a compile-time constant, the window of `in`
// and the template cached in __shared__ (passes/gpu-cache-shared/conv2d.mlir checks the IR).

// CHECK-LABEL: __global__ void {{.*}}conv2d_kernel(
// CHECK:      __shared__ float tmpl_sh[9];
// CHECK:      __shared__ float in_sh[102];
// CHECK:        tmpl_sh[tx] = tmpl[
// CHECK:      __syncthreads();
// CHECK:      for (long long j_idx =
// The tile base is built by the pass from int values it cannot bound: it wraps (unsigned).
// CHECK:        const unsigned in_base = 32u * (unsigned)bx + (unsigned)n * j + 2u * j;
// CHECK:        for (long long e = tx; e < 102; e += 32) {
// CHECK:          in_sh[e] = in[(int)(in_base + (unsigned)
// CHECK:        __syncthreads();
// CHECK:              sum = sum + in_sh[u + tx + v * 34LL] * tmpl_sh[u + v * 3LL];
// CHECK:        __syncthreads();

#define t 3
void conv2d(float *out, const float *in, const float *tmpl, int n, int m) {
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
