// RUN: autogpu-opt %s -p 'agpu-stage-accumulations{assume_no_alias=true},autogpu-vanilla{block_size=32},gpu-cache-shared{assume_no_alias=true}' | filecheck %s
// RUN: autogpu-opt %s -p 'agpu-stage-accumulations{assume_no_alias=true},autogpu-vanilla{block_size=32},gpu-cache-shared{assume_no_alias=true},gpu-infer-nsw' -t cuda | filecheck %s --check-prefix=CUDA

// mm_1 -> mm_2 (AutoGPU 2.3.3): C[k + j*p] is the same for every thread of a block and walks
// k, so the k loop is strip-mined by the block width and each tile of C is loaded by the
// threads together into shared memory, between barriers that every thread reaches: the
// out-of-range threads (i >= m) take part in the loads and barriers; only their work is
// guarded. B[i + k*m] (one element per thread) and A (written) stay global.

// CHECK-LABEL: "gpu.func"
// CHECK:         %[[SH:.*]] = memref.alloca() : memref<32xf32, 3 : i32>
// CHECK:         %[[TX:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}>
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[IN:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : index
// CHECK:           scf.if %[[IN]] {
// CHECK-NEXT:        memref.load %A
// The tiles: kk = 0, 32, ... < p, each from k = kk to min(kk + 32, p).
// CHECK:           scf.for %[[KK:.*]] = %{{.*}} to %[[P:.*]] step %[[T:.*]] {
// CHECK-NEXT:        %[[KK32:.*]] = arith.addi %[[KK]], %[[T]] : index
// CHECK-NEXT:        %[[END:.*]] = arith.minsi %[[KK32]], %[[P]] : index
// CHECK-NEXT:        %[[FIRST:.*]] = arith.index_cast %[[KK]] : index to i32
// CHECK-NEXT:        %[[LAST:.*]] = arith.index_cast %[[END]] : index to i32
// Thread tx loads C[(kk + tx) + j*p] when kk + tx < p and the block has a thread with work.
// CHECK:             scf.if %{{.*}} {
// CHECK:               %[[V:.*]] = memref.load %C[%{{.*}}] : memref<?xf32>
// CHECK-NEXT:          memref.store %[[V]], %[[SH]][%[[TX]]] : memref<32xf32, 3 : i32>
// CHECK-NEXT:        }
// CHECK-NEXT:        "gpu.barrier"() : () -> ()
// CHECK-NEXT:        scf.if %[[IN]] {
// CHECK-NEXT:          scf.for %[[K:.*]] = %[[FIRST]] to %[[LAST]] step %{{.*}} : i32 {
// CHECK:                 memref.load %B
// CHECK:                 %[[KI:.*]] = arith.index_cast %[[K]] : i32 to index
// CHECK-NEXT:            %[[OFF:.*]] = arith.subi %[[KI]], %{{.*}} : index
// CHECK-NEXT:            memref.load %[[SH]][%[[OFF]]] : memref<32xf32, 3 : i32>
// CHECK:               }
// CHECK-NEXT:        }
// CHECK-NEXT:        "gpu.barrier"() : () -> ()
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.if %[[IN]] {
// CHECK-NEXT:        memref.load %{{.*}}[] : memref<f32>
// CHECK-NEXT:        memref.store %{{.*}}, %A
// CHECK-NOT:     memref.load %C

// Printed as CUDA, this is the paper's mm_2. The tile base C_base = k_first + j * p is built by
// the pass, without nsw (nothing bounds j * p): it wraps, in unsigned arithmetic.
// CUDA:      __shared__ float C_sh[32];
// CUDA:      for (long long k_tile = 0; k_tile < p; k_tile += 32) {
// CUDA:        const int k_end = (int)min(k_tile + 32, (long long)p);
// CUDA:        const unsigned C_base = k_first + (unsigned)j * p;
// CUDA:        C_sh[tx] = C[(int)(C_base + (unsigned)tx)];
// CUDA:        __syncthreads();
// CUDA-NEXT:   if (in_bounds) {
// CUDA-NEXT:     for (int k = k_first; k < k_end; k++) {
// CUDA-NEXT:       A_acc = A_acc + B[i + k * m] * C_sh[(long long)k - k_first];
// CUDA:        __syncthreads();

// The AutoGPU paper's serial MATMUL, column-major: A (m x n) += B (m x p) * C (p x n).
void matmul(float *A, const float *B, const float *C, int m, int n, int p) {
#pragma omp parallel for collapse(2)
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++)
      for (int k = 0; k < p; k++)
        A[i + j * m] += B[i + k * m] * C[k + j * p];
}
