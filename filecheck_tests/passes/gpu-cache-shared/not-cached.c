// RUN: autogpu-opt %s -p 'autogpu-vanilla{block_size=32},gpu-cache-shared{assume_no_alias=true remarks=true}' 2>&1 | filecheck %s
// RUN: autogpu-opt %s -p 'autogpu-vanilla{block_size=32},gpu-cache-shared{assume_no_alias=true shared_budget=100 remarks=true}' 2>&1 | filecheck %s --check-prefix=BUDGET
// RUN: autogpu-opt %s -p 'autogpu-vanilla{block_size=32},gpu-cache-shared{remarks=true}' 2>&1 | filecheck %s --check-prefix=ALIAS

// Where the pass must not fire, and the remarks that say why. Each function's kernel keeps its
// global loads and gets no shared memory.

// CHECK-DAG: remark: gpu-cache-shared: @pairs_kernel: 'in' not cached: no reuse: the block reads each element of the tile only once
// CHECK-DAG: remark: gpu-cache-shared: @prefix_kernel: 'a' not cached: the kernel writes it
// CHECK-DAG: remark: gpu-cache-shared: @window_kernel: 'in' not cached: the trip count of the loop over 'u' is not a compile-time constant (specialise the sizes, or give max_extent)
// CHECK-DAG: remark: gpu-cache-shared: @window_kernel: 'w' cached (thread-invariant) in __shared__ w_sh[32]
// CHECK-DAG: remark: gpu-cache-shared: @gather_kernel: 'x' not cached: the index depends on values not known before the tile
// CHECK-DAG: remark: gpu-cache-shared: @gather_kernel: 'idx' cached (thread-invariant) in __shared__ idx_sh[32]
// CHECK-DAG: remark: gpu-cache-shared: @scale_kernel: 'w' cached (thread-invariant) in __shared__ w_sh[32]
// CHECK-NOT: remark

// (A kernel's name follows its body.)
// CHECK-NOT:     memref.alloca() : memref<{{.*}}, 3 : i32>
// CHECK:         memref.load %in
// CHECK:         memref.load %in
// CHECK:         sym_name = "pairs_kernel"
// CHECK-NOT:     memref.alloca() : memref<{{.*}}, 3 : i32>
// CHECK:         sym_name = "prefix_kernel"
// CHECK:         memref.alloca() : memref<32xf32, 3 : i32>
// CHECK-NOT:     memref.alloca() : memref<{{.*}}, 3 : i32>
// CHECK:         memref.load %in
// CHECK:         sym_name = "window_kernel"
// CHECK:         memref.alloca() : memref<32xi32, 3 : i32>
// CHECK-NOT:     memref.alloca() : memref<{{.*}}, 3 : i32>
// CHECK:         memref.load %x
// CHECK:         sym_name = "gather_kernel"

// Threads read in[2i] and in[2i + 1]: no element is shared (a coefficient of 2 on the thread
// index, which the tile model cannot fold).
void pairs(const float *in, float *restrict out, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    out[i] = in[2 * i] + in[2 * i + 1];
}

// a[k] is read by every thread, but the loop also writes a (after the first t elements).
void prefix(float *a, float *restrict b, int n, int t) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    float s = 0.0f;
    for (int k = 0; k < t; k++)
      s += a[k];
    a[t + i] = s;
    b[i] = s;
  }
}

// A 1D window of runtime width t: the halo tile would need t elements more than the block; t
// is unknown, so `in` is not cached (w, the same for all threads, is, strip-mined).
void window(const float *in, const float *w, float *restrict out, int n, int t) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    float s = 0.0f;
    for (int u = 0; u < t; u++)
      s += in[i + u] * w[u];
    out[i] = s;
  }
}

// An index read from memory: not known before the loop runs (the indices themselves, the same
// for all threads, are cached).
void gather(const float *x, const int *idx, float *restrict y, int n, int t) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    float s = 0.0f;
    for (int k = 0; k < t; k++)
      s += x[idx[k]];
    y[i] = s;
  }
}

// Without restrict, `out` may point into `w`.
void scale(const float *w, float *out, int n, int t) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    float s = 0.0f;
    for (int k = 0; k < t; k++)
      s += w[k] * (float)i;
    out[i] = s;
  }
}

// With 100 bytes of shared memory, not even one tile of w (32 floats) fits.
// BUDGET-DAG: remark: gpu-cache-shared: @window_kernel: 'w' not cached: a tile of 32 elements needs 128 bytes of shared memory in all, over the budget of 100
// BUDGET-NOT: memref.alloca() : memref<{{.*}}, 3 : i32>

// ALIAS-DAG: remark: gpu-cache-shared: @scale_kernel: 'w' not cached: the kernel writes 'out', which may alias it (mark the pointers restrict, or set assume_no_alias)
// ALIAS-DAG: remark: gpu-cache-shared: @window_kernel: 'w' cached
