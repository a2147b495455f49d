// RUN: autogpu-opt %s -p 'agpu-unroll-parallel{x=4 y=2 distribution=blocked}' | filecheck %s
// RUN: autogpu-opt %s -p 'agpu-unroll-parallel{x=4 y=2 distribution=blocked},convert-agpu-to-gpu{block_size=8 block_y=4}' | filecheck %s --check-prefix=LOWERED
// RUN: autogpu-opt %s -p 'agpu-unroll-parallel{x=4 y=2}' | filecheck %s --check-prefix=CYCLIC

// Blocked replicas: both mapped loops record it (the syntax round-trips), and the lowering
// gives thread t the iterations t * U + u: its first one `blockIdx * blockDim * U +
// threadIdx * U`, the others 1 apart (not blockDim apart), on x and in y's grid-stride loop.
func.func @matmul(%A: memref<?xf32>, %m: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %j = %c0 to %n step %c1 : i32 {
    agpu.parallel_for %i = %c0 to %m step %c1 : i32 {
      %jm = arith.muli %j, %m : i32
      %c = arith.addi %jm, %i : i32
      %ii = arith.index_cast %c : i32 to index
      %v = arith.constant 1.0 : f32
      memref.store %v, %A[%ii] : memref<?xf32>
    }
  }
  func.return
}

// CHECK-LABEL: func.func @matmul(
// CHECK: agpu.parallel_for %{{.*}} : i32 unroll 2 distribution blocked {
// CHECK-NEXT: agpu.parallel_for %{{.*}} : i32 unroll 4 distribution blocked {

// LOWERED-LABEL: "gpu.func"()
// LOWERED: %[[ONE:.*]] = arith.constant 1 : index
// LOWERED-NEXT: %[[U:.*]] = arith.constant 4 : index
// LOWERED-NEXT: %[[BX:.*]] = "gpu.block_id"() <{dimension = #gpu<dim x>}>
// LOWERED-NEXT: %[[BDX:.*]] = "gpu.block_dim"() <{dimension = #gpu<dim x>}>
// LOWERED-NEXT: %[[TX:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}>
// LOWERED-NEXT: %[[B0:.*]] = arith.muli %[[BX]], %[[BDX]] overflow<nsw> : index
// LOWERED-NEXT: %[[B1:.*]] = arith.muli %[[B0]], %[[U]] overflow<nsw> : index
// LOWERED-NEXT: %[[T:.*]] = arith.muli %[[TX]], %[[U]] overflow<nsw> : index
// LOWERED-NEXT: %[[GID:.*]] = arith.addi %[[B1]], %[[T]] overflow<nsw> : index
// LOWERED: %[[UY:.*]] = arith.constant 2 : index
// LOWERED: %[[TY:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim y>}>
// LOWERED: arith.muli %[[TY]], %[[UY]] overflow<nsw> : index
// LOWERED: %[[I1:.*]] = arith.addi %[[GID]], %[[ONE]] overflow<nsw> : index
// LOWERED: %[[C3:.*]] = arith.constant 3 : index
// LOWERED-NEXT: %[[I3:.*]] = arith.addi %[[GID]], %[[C3]] overflow<nsw> : index
// LOWERED-NEXT: %{{.*}} = arith.cmpi slt, %[[I3]], %{{.*}} : index
// LOWERED-NEXT: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// LOWERED-NEXT: %[[J1:.*]] = arith.addi %[[J]], %{{.*}} overflow<nsw> : index
// LOWERED-NEXT: arith.cmpi slt, %[[J1]], %{{.*}} : index

// CYCLIC-LABEL: func.func @matmul(
// CYCLIC: agpu.parallel_for %{{.*}} : i32 unroll 2 {
// CYCLIC-NEXT: agpu.parallel_for %{{.*}} : i32 unroll 4 {
