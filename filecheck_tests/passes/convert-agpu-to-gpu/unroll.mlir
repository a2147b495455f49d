// RUN: autogpu-opt %s --split-input-file -p 'convert-agpu-to-gpu{jam=false}' | filecheck %s

// Parallel unrolling without jamming (`jam=false`; the default jams the replicas, see
// unroll-jam.mlir): with unroll 2 each thread runs the body for
// gid and gid + blockDim.x, where gid = blockIdx.x * blockDim.x * 2 + threadIdx.x; each
// replica has its own guard, and the grid halves.
func.func @unroll2(%A: memref<?xf32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 unroll 2 {
    %ii = arith.index_cast %i : i32 to index
    %v = memref.load %A[%ii] : memref<?xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %A[%ii] : memref<?xf32>
  }
  func.return
}

// CHECK: %[[UB:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[BX:.*]] = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT: %[[BDX:.*]] = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT: %[[TX:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT: %[[T0:.*]] = arith.muli %[[BX]], %[[BDX]] overflow<nsw> : index
// CHECK-NEXT: %[[T1:.*]] = arith.muli %[[T0]], %[[TWO]] overflow<nsw> : index
// CHECK-NEXT: %[[GID:.*]] = arith.addi %[[T1]], %[[TX]] overflow<nsw> : index
// replica 0
// CHECK-NEXT: %[[IN0:.*]] = arith.cmpi slt, %[[GID]], %[[UB]] : index
// CHECK-NEXT: scf.if %[[IN0]] {
// CHECK-NEXT: %[[I0:.*]] = arith.index_cast %[[GID]] : index to i32
// CHECK: memref.store
// CHECK-NEXT: }
// replica 1
// CHECK-NEXT: %[[IDX1:.*]] = arith.addi %[[GID]], %[[BDX]] overflow<nsw> : index
// CHECK-NEXT: %[[IN1:.*]] = arith.cmpi slt, %[[IDX1]], %[[UB]] : index
// CHECK-NEXT: scf.if %[[IN1]] {
// CHECK-NEXT: %[[I1:.*]] = arith.index_cast %[[IDX1]] : index to i32
// CHECK-NEXT: %[[II1:.*]] = arith.index_cast %[[I1]] : i32 to index
// CHECK-NEXT: memref.load %{{.*}}[%[[II1]]]
// CHECK: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: "gpu.return"

// 256 threads x 2 iterations per block
// CHECK-LABEL: func.func @unroll2(
// CHECK: %[[PER_BLOCK:.*]] = arith.constant 512 : index
// CHECK-NEXT: arith.ceildivsi %{{.*}}, %[[PER_BLOCK]] : index
// CHECK: %[[BS:.*]] = arith.constant 256 : index
// CHECK-NEXT: "gpu.launch_func"(%{{.*}}, %{{.*}}, %{{.*}}, %[[BS]],

// -----

// Unrolling a loop on y (sparse, step 2, unroll 3): each grid-stride iteration covers three
// rows j, j + 1, j + 2, each guarded (bound and stride); the grid-stride step is gridDim.y * 3.
func.func @unroll_y(%A: memref<?xf32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  agpu.parallel_for %j = %c0 to %n step %c2 : i32 unroll 3 {
    agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
      %jn = arith.muli %j, %n : i32
      %c = arith.addi %jn, %i : i32
      %ii = arith.index_cast %c : i32 to index
      %v = arith.constant 1.0 : f32
      memref.store %v, %A[%ii] : memref<?xf32>
    }
  }
  func.return
}

// CHECK: "gpu.thread_id"() <{dimension = #gpu<dim x>}>
// CHECK: %[[J_UB:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK-NEXT: %[[STEP:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[THREE:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[BY:.*]] = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: %[[START:.*]] = arith.muli %[[BY]], %[[THREE]] overflow<nsw> : index
// CHECK-NEXT: %[[GDY:.*]] = "gpu.grid_dim"() <{dimension = #gpu<dim y>}> : () -> index
// CHECK-NEXT: %[[STRIDE:.*]] = arith.muli %[[GDY]], %[[THREE]] overflow<nsw> : index
// CHECK-NEXT: scf.for %[[J0:.*]] = %[[START]] to %[[J_UB]] step %[[STRIDE]] {
// replica 0: the loop bounds it; only the stride test
// CHECK-NEXT: %[[R0:.*]] = arith.remsi %[[J0]], %[[STEP]] : index
// CHECK-NEXT: %[[Z0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[ON0:.*]] = arith.cmpi eq, %[[R0]], %[[Z0]] : index
// CHECK-NEXT: scf.if %[[ON0]] {
// CHECK: }
// replicas 1 and 2
// CHECK: %[[J1:.*]] = arith.addi %[[J0]], %{{.*}} : index
// CHECK-NEXT: %[[IN1:.*]] = arith.cmpi slt, %[[J1]], %[[J_UB]] : index
// CHECK: %[[ACT1:.*]] = arith.andi %[[IN1]], %{{.*}} : i1
// CHECK-NEXT: scf.if %[[ACT1]] {
// CHECK: %[[J2:.*]] = arith.addi %[[J0]], %{{.*}} : index
// CHECK-NEXT: %[[IN2:.*]] = arith.cmpi slt, %[[J2]], %[[J_UB]] : index
// CHECK: %[[ACT2:.*]] = arith.andi %[[IN2]], %{{.*}} : i1
// CHECK-NEXT: scf.if %[[ACT2]] {
// CHECK-NOT: arith.andi
// CHECK: "gpu.return"

// CHECK-LABEL: func.func @unroll_y(
// CHECK: %[[THREE_H:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[ROWS:.*]] = arith.ceildivsi %{{.*}}, %[[THREE_H]] : index
// CHECK-NEXT: %[[ROWS1:.*]] = arith.maxsi %[[ROWS]], %{{.*}} : index
// CHECK-NEXT: %[[LIMIT:.*]] = arith.constant 65535 : index
// CHECK-NEXT: %[[GY:.*]] = arith.minsi %[[ROWS1]], %[[LIMIT]] : index
// CHECK-NEXT: "gpu.launch_func"(%{{.*}}, %[[GY]],
