// RUN: autogpu-opt %s -p 'agpu-stage-accumulations{assume_no_alias=true},autogpu-vanilla{block_size=32},gpu-cache-shared{assume_no_alias=true},gpu-infer-nsw' -t cuda | filecheck %s

// C -> CUDA: mm_1 with the tiles of C in __shared__ is the paper's mm_2
// (passes/gpu-cache-shared/matmul.mlir checks the IR).

// CHECK-LABEL: __global__ void {{.*}}matmul_kernel(
// CHECK:      __shared__ float C_sh[32];
// CHECK:      for (long long k_tile = 0; k_tile < p; k_tile += 32) {
// The tile base C_base = k_first + j * p is built by the pass, without nsw (nothing bounds
// j * p): it wraps, in unsigned arithmetic.
// CHECK:        const int k_end = (int)min(k_tile + 32, (long long)p);
// CHECK:        const unsigned C_base = k_first + (unsigned)j * p;
// CHECK:        C_sh[tx] = C[(int)(C_base + (unsigned)tx)];
// CHECK:        __syncthreads();
// CHECK-NEXT:   if (in_bounds) {
// CHECK-NEXT:     for (int k = k_first; k < k_end; k++) {
// CHECK-NEXT:       A_acc = A_acc + B[i + k * m] * C_sh[(long long)k - k_first];
// CHECK:        __syncthreads();

// The AutoGPU paper's serial MATMUL, column-major: A (m x n) += B (m x p) * C (p x n).
void matmul(float *A, const float *B, const float *C, int m, int n, int p) {
#pragma omp parallel for collapse(2)
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++)
      for (int k = 0; k < p; k++)
        A[i + j * m] += B[i + k * m] * C[k + j * p];
}
