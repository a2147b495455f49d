// RUN: autogpu-opt %s -p 'convert-agpu-to-gpu' | filecheck %s
// RUN: autogpu-opt %s -p 'convert-agpu-to-gpu{block_size=32 block_y=8}' 2>&1 | filecheck %s --check-prefix=BLOCK2D

// OpenMP's thread_limit(N), recorded on the loop as agpu.thread_limit, bounds its kernel's
// block: 256 threads along x become 64; a 32x8 block under thread_limit(100) keeps x and
// shrinks y to 3, with a remark since the options asked for more.

func.func @copy2d(%A: memref<?xf32>, %B: memref<?xf32>, %m: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %j = %c0 to %n step %c1 : i32 {
    agpu.parallel_for %i = %c0 to %m step %c1 : i32 {
      %jm = arith.muli %j, %m : i32
      %c = arith.addi %jm, %i : i32
      %ii = arith.index_cast %c : i32 to index
      %v = memref.load %B[%ii] : memref<?xf32>
      memref.store %v, %A[%ii] : memref<?xf32>
    }
  } {agpu.thread_limit = 100 : i64}
  agpu.parallel_for %k = %c0 to %n step %c1 : i32 {
    %kk = arith.index_cast %k : i32 to index
    %v = memref.load %B[%kk] : memref<?xf32>
    memref.store %v, %A[%kk] : memref<?xf32>
  } {agpu.thread_limit = 64 : i64}
  func.return
}

// CHECK: sym_name = "copy2d_kernel0", gpu.known_block_size = array<i32: 100, 1, 1>
// CHECK: sym_name = "copy2d_kernel1", gpu.known_block_size = array<i32: 64, 1, 1>
// CHECK-LABEL: func.func @copy2d(
// CHECK: %[[BS:.*]] = arith.constant 100 : index
// CHECK: "gpu.launch_func"(%{{.*}}, %{{.*}}, %[[ONE:[^,]*]], %[[BS]], %[[ONE]], %[[ONE]],
// CHECK: %[[BS1:.*]] = arith.constant 64 : index
// CHECK: "gpu.launch_func"(%{{.*}}, %{{.*}}, %[[ONE1:[^,]*]], %[[BS1]], %[[ONE1]], %[[ONE1]],

// BLOCK2D: remark: the block options ask for 32x8x1 = 256 threads, but this loop's 'thread_limit(100)' allows at most 100: its kernel runs blocks of 32x3x1
// BLOCK2D: sym_name = "copy2d_kernel0", gpu.known_block_size = array<i32: 32, 3, 1>
// BLOCK2D: sym_name = "copy2d_kernel1", gpu.known_block_size = array<i32: 32, 1, 1>
