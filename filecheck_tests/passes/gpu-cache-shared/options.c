// RUN: autogpu-opt %examples/matmul.c -p 'agpu-stage-accumulations{assume_no_alias=true},autogpu-vanilla{block_size=32},gpu-cache-shared{assume_no_alias=true tile=8}' | filecheck %s --check-prefix=TILE
// RUN: autogpu-opt %examples/matmul.c -p 'agpu-stage-accumulations{assume_no_alias=true},autogpu-vanilla{block_size=32},gpu-cache-shared{assume_no_alias=true thread_invariant=false}' | filecheck %s --check-prefix=NONE
// RUN: autogpu-opt %s -p 'autogpu-vanilla{block_size=32},gpu-cache-shared{assume_no_alias=true halo=false}' | filecheck %s --check-prefix=NOHALO
// RUN: autogpu-opt %s -p 'autogpu-vanilla{block_size=32},gpu-cache-shared{assume_no_alias=true arrays=in}' | filecheck %s --check-prefix=ARRAYS
// RUN: autogpu-opt %s -p 'autogpu-vanilla{block_size=32},gpu-cache-shared{assume_no_alias=true max_extent=5}' | filecheck %s --check-prefix=MAX

// tile=8: tiles of 8 iterations of k (the block has 32 threads: threads 0..7 load them).
// TILE:      %[[SH:.*]] = memref.alloca() : memref<8xf32, 3 : i32>
// TILE:      %[[EIGHT:.*]] = arith.constant 8 : index
// TILE:      scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[EIGHT]] {
// TILE:        arith.cmpi slt, %{{.*}}, %[[EIGHT]] : index
// TILE:        memref.store %{{.*}}, %[[SH]]

// thread_invariant=false: matmul's C is not cached (and nothing else is).
// NONE-NOT:  memref.alloca() : memref<{{.*}}, 3 : i32>
// NONE-NOT:  "gpu.barrier"

// halo=false on the convolution below (t unknown): the template is cached, strip-mined along u.
// NOHALO:     memref.alloca() : memref<32xf32, 3 : i32>
// NOHALO-NOT: memref.alloca() : memref<{{.*}}, 3 : i32>

// arrays=in: only `in` may be cached, and its window needs a bound on t: nothing happens.
// ARRAYS-NOT: memref.alloca() : memref<{{.*}}, 3 : i32>

// max_extent=5: the window is sized for t <= 5, (32 + 4) x 5, the template 5 x 5; the code
// checks t <= 5 and otherwise runs the original loops.
// MAX-DAG:   %[[TMPL:.*]] = memref.alloca() : memref<25xf32, 3 : i32>
// MAX-DAG:   %[[IN:.*]] = memref.alloca() : memref<180xf32, 3 : i32>
// MAX:       %[[T:.*]] = arith.maxsi %{{.*}}, %{{.*}} : index
// MAX:       %[[FITS:.*]] = arith.cmpi sle, %[[T]], %{{.*}} : index
// MAX:       scf.if %[[FITS]] {
// MAX:         memref.store %{{.*}}, %[[TMPL]]
// MAX:         "gpu.barrier"
// MAX:         scf.for
// MAX:           memref.store %{{.*}}, %[[IN]]
// MAX:           "gpu.barrier"
// MAX:           memref.load %[[IN]]
// MAX:           memref.load %[[TMPL]]
// MAX:           "gpu.barrier"
// MAX:       } else {
// MAX-NOT:     "gpu.barrier"
// MAX:         memref.load %in
// MAX:         memref.load %tmpl
// MAX:       }

void conv2d(float *out, const float *in, const float *tmpl, int n, int m, int t) {
  int pn = n + t - 1;
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
