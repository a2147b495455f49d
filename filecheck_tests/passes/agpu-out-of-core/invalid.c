// RUN: not autogpu-opt %s --split-input-file -p agpu-out-of-core 2>&1 | filecheck %s

void indirect(int n, const int *idx, const float *x, float *y) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    y[i] = x[idx[i]];
}
// CHECK: invalid.c:6:12: error: out-of-core: the subscript of 'x' depends on a value read from memory
// CHECK-NOT: Traceback
