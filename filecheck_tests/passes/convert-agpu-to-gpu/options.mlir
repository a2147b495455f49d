// RUN: autogpu-opt %s -p 'convert-agpu-to-gpu{block_size=128}' | filecheck %s
// RUN: autogpu-opt %s -p 'convert-agpu-to-gpu{block_size=128}' -t cuda | filecheck %s --check-prefix=DEFAULT-CUDA
// RUN: autogpu-opt %s -p 'convert-agpu-to-gpu{block_size=32 block_y=8}' | filecheck %s --check-prefix=BLOCK2D
// RUN: autogpu-opt %s -p 'convert-agpu-to-gpu{block_size=128 min_blocks=3}' | filecheck %s --check-prefix=MINB
// RUN: autogpu-opt %s -p 'convert-agpu-to-gpu{block_size=128 min_blocks=3}' -t cuda | filecheck %s --check-prefix=MINB-CUDA

// block_size sets the threads per block along x (launch, grid and gpu.known_block_size);
// block_y gives the loop on y threads too: j = blockIdx.y * blockDim.y + threadIdx.y, striding
// by gridDim.y * blockDim.y.

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
  }
  func.return
}

// CHECK: sym_name = "copy2d_kernel", gpu.known_block_size = array<i32: 128, 1, 1>
// CHECK-LABEL: func.func @copy2d(
// CHECK: %[[BS:.*]] = arith.constant 128 : index
// CHECK-NEXT: arith.ceildivsi %{{.*}}, %[[BS]] : index
// CHECK: "gpu.launch_func"(%{{.*}}, %{{.*}}, %[[ONE:[^,]*]], %[[BS]], %[[ONE]], %[[ONE]],

// BLOCK2D: "gpu.thread_id"() <{dimension = #gpu<dim x>}>
// BLOCK2D: %[[J_UB:.*]] = arith.index_cast %{{.*}} : i32 to index
// BLOCK2D-NEXT: %[[BY:.*]] = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
// BLOCK2D-NEXT: %[[BDY:.*]] = "gpu.block_dim"() <{dimension = #gpu<dim y>}> : () -> index
// BLOCK2D-NEXT: %[[TY:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
// BLOCK2D-NEXT: %[[T:.*]] = arith.muli %[[BY]], %[[BDY]] overflow<nsw> : index
// BLOCK2D-NEXT: %[[GIDY:.*]] = arith.addi %[[T]], %[[TY]] overflow<nsw> : index
// BLOCK2D-NEXT: %[[GDY:.*]] = "gpu.grid_dim"() <{dimension = #gpu<dim y>}> : () -> index
// BLOCK2D-NEXT: %[[STRIDE:.*]] = arith.muli %[[GDY]], %[[BDY]] overflow<nsw> : index
// BLOCK2D-NEXT: scf.for %{{.*}} = %[[GIDY]] to %[[J_UB]] step %[[STRIDE]] {
// BLOCK2D: sym_name = "copy2d_kernel", gpu.known_block_size = array<i32: 32, 8, 1>
// BLOCK2D-LABEL: func.func @copy2d(
// BLOCK2D: %[[BX:.*]] = arith.constant 32 : index
// BLOCK2D: %[[NY:.*]] = arith.index_cast %{{.*}} : i32 to index
// BLOCK2D-NEXT: %[[BYS:.*]] = arith.constant 8 : index
// BLOCK2D-NEXT: %[[ROWS:.*]] = arith.ceildivsi %[[NY]], %[[BYS]] : index
// BLOCK2D: "gpu.launch_func"(%{{.*}}, %{{.*}}, %[[ONE:[^,]*]], %[[BX]], %[[BYS]], %[[ONE]],

// min_blocks: every kernel records the blocks a multiprocessor must hold at once, which the
// cuda target passes to __launch_bounds__ (nvcc then keeps a thread within 65536 / (128 * 3)
// registers); without the option the attribute is absent and the bounds have one argument.
// MINB-LABEL: "gpu.func"
// MINB:       sym_name = "copy2d_kernel", gpu.known_block_size = array<i32: 128, 1, 1>
// MINB-SAME:  agpu.min_blocks_per_sm = 3 : i32
// MINB-CUDA-LABEL: extern "C" __global__ void __launch_bounds__(128, 3) copy2d_kernel(
// DEFAULT-CUDA: extern "C" __global__ void __launch_bounds__(128) copy2d_kernel(
