// A user's own program around the matmul kernel, for autogpu-tune's testing-platform mode:
//
//   autogpu-tune examples/matmul.c --size m=1024 --size n=1024 --size p=1024 \
//       --host-source examples/host/matmul_app.cu \
//       --build 'nvcc -O3 -arch=native -I{dir} -o {dir}/app {host}' --run '{dir}/app 1024'
//
// The tuner writes each variant's kernel.cu (kernels + autogpu_launch_matmul) and a copy of this
// file with timing and error checks around the launch after the marker. The program checks its
// own result, as a real application would, and exits non-zero when it is wrong: the tuner then
// records the variant as failed. Inputs are small integers, so every sum is exact in float.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kernel.cu"

static const int kLaunches = 5;  // the launches the marker below times (repeat=5)

int main(int argc, char **argv) {
  const int size = argc > 1 ? atoi(argv[1]) : 1024;
  const int m = size, n = size, p = size;
  std::vector<float> A((size_t)m * n, 0.0f), B((size_t)m * p), C((size_t)p * n);
  for (size_t e = 0; e < B.size(); e++) B[e] = (float)((int)(e * 7 % 5) - 2);
  for (size_t e = 0; e < C.size(); e++) C[e] = (float)((int)(e * 3 % 7) - 3);

  float *dA, *dB, *dC;
  cudaMalloc(&dA, A.size() * sizeof(float));
  cudaMalloc(&dB, B.size() * sizeof(float));
  cudaMalloc(&dC, C.size() * sizeof(float));
  cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dC, C.data(), C.size() * sizeof(float), cudaMemcpyHostToDevice);

  // autogpu: time repeat=5
  autogpu_launch_matmul(dA, dB, dC, m, n, p);

  cudaMemcpy(A.data(), dA, A.size() * sizeof(float), cudaMemcpyDeviceToHost);
  for (int j = 0; j < n; j += 37) {  // every 37th column, against the serial loops
    for (int i = 0; i < m; i++) {
      float expected = 0.0f;
      for (int k = 0; k < p; k++) expected += B[i + (size_t)k * m] * C[k + (size_t)j * p];
      expected *= kLaunches;
      if (A[i + (size_t)j * m] != expected) {
        fprintf(stderr, "wrong result: A[%d + %d*m] = %g, expected %g\n", i, j,
                A[i + (size_t)j * m], expected);
        return 1;
      }
    }
  }
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
  return 0;
}
