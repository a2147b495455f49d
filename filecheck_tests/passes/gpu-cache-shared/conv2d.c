// RUN: autogpu-opt %s -p 'autogpu-vanilla{block_size=32},gpu-cache-shared{assume_no_alias=true}' | filecheck %s
// RUN: autogpu-opt %s -p 'autogpu-vanilla{block_size=32 block_y=4},gpu-cache-shared{assume_no_alias=true}' | filecheck %s --check-prefix=BLOCK2D
// RUN: autogpu-opt %s -p 'autogpu-vanilla{block_size=32},gpu-cache-shared{assume_no_alias=true},gpu-infer-nsw' -t cuda | filecheck %s --check-prefix=CUDA
// RUN: autogpu-opt %examples/conv2d.c -p 'agpu-specialize{sizes="t=3"},autogpu-vanilla{block_size=32},gpu-cache-shared{assume_no_alias=true}' | filecheck %s --check-prefix=SPECIALISED

// The direct convolution with the template size a compile-time constant (t = 3; what
// agpu-specialize makes of examples/conv2d.c). Where the paper's conclusion says AutoGPU lost
// to the hand-written FLCC kernel: the threads i0 .. i0+31 of a block read the window
// in[(i0 .. i0+31+2) + (j+v)*pn], v < 3, so the block loads it once: (32 + 2) x 3 elements
// (a halo of t - 1), and the whole 3 x 3 template, once per block, before the grid-stride loop.

// CHECK-LABEL: "gpu.func"
// CHECK-DAG:     %[[TMPL:.*]] = memref.alloca() : memref<9xf32, 3 : i32>
// CHECK-DAG:     %[[IN:.*]] = memref.alloca() : memref<102xf32, 3 : i32>
// CHECK:         %[[TX:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}>
// The template: threads 0..8 load it.
// CHECK:         %[[V:.*]] = memref.load %tmpl[%{{.*}}] : memref<?xf32>
// CHECK-NEXT:    memref.store %[[V]], %[[TMPL]][%[[TX]]]
// CHECK:         "gpu.barrier"() : () -> ()
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// The window: 102 elements, 32 threads, in rounds; element e is (e % 34, e / 34).
// CHECK:           scf.for %[[E:.*]] = %[[TX]] to %{{.*}} step %{{.*}} {
// CHECK:             %[[W:.*]] = memref.load %in[%{{.*}}] : memref<?xf32>
// CHECK-NEXT:        memref.store %[[W]], %[[IN]][%[[E]]] : memref<102xf32, 3 : i32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:      "gpu.barrier"() : () -> ()
// CHECK-NEXT:      scf.if %{{.*}} {
// CHECK:             scf.for %[[VV:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT:          scf.for %[[U:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK:                 memref.load %[[IN]][%{{.*}}] : memref<102xf32, 3 : i32>
// CHECK:                 memref.load %[[TMPL]][%{{.*}}] : memref<9xf32, 3 : i32>
// CHECK:           "gpu.barrier"() : () -> ()
// CHECK-NEXT:    }
// CHECK-NOT:     memref.load %in
// CHECK-NOT:     memref.load %tmpl

// 2D blocks (32 x 4): threads (i, j) read in[(i+u) + (j+v)*pn], a (32 + 2) x (4 + 2) tile.
// BLOCK2D:       memref.alloca() : memref<204xf32, 3 : i32>

// examples/conv2d.c specialised to t = 3 by agpu-specialize: the same tiles.
// SPECIALISED-DAG: memref.alloca() : memref<9xf32, 3 : i32>
// SPECIALISED-DAG: memref.alloca() : memref<102xf32, 3 : i32>

// CUDA:      __shared__ float tmpl_sh[9];
// CUDA:      __shared__ float in_sh[102];
// CUDA:        tmpl_sh[tx] = tmpl[
// CUDA:      __syncthreads();
// CUDA:      for (long long j_idx =
// The tile base is built by the pass from int values it cannot bound: it wraps (unsigned).
// CUDA:        const unsigned in_base = 32u * (unsigned)bx + (unsigned)n * j + 2u * j;
// CUDA:        for (long long e = tx; e < 102; e += 32) {
// CUDA:          in_sh[e] = in[(int)(in_base + (unsigned)
// CUDA:        __syncthreads();
// CUDA:              sum = sum + in_sh[u + tx + v * 34LL] * tmpl_sh[u + v * 3LL];
// CUDA:        __syncthreads();

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
