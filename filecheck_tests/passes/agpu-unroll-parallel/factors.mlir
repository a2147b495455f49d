// RUN: autogpu-opt %s --split-input-file -p 'agpu-unroll-parallel{x=2 y=8}' | filecheck %s
// RUN: autogpu-opt %s --split-input-file -p 'agpu-unroll-parallel{x=4}' | filecheck %s --check-prefix=XONLY
// RUN: autogpu-opt %s --split-input-file -p 'agpu-unroll-parallel{z=3 y=1}' | filecheck %s --check-prefix=Z

// The innermost parallel loop of a nest runs on x, the next one on y: the factors land there.
func.func @matmul(%A: memref<?xf32>, %m: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %j = %c0 to %n step %c1 : i32 unroll 3 {
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
// CHECK: agpu.parallel_for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 unroll 8 {
// CHECK-NEXT: agpu.parallel_for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 unroll 2 {

// An option left out keeps the loop's factor (unroll 3 on j).
// XONLY-LABEL: func.func @matmul(
// XONLY: agpu.parallel_for %{{.*}} : i32 unroll 3 {
// XONLY-NEXT: agpu.parallel_for %{{.*}} : i32 unroll 4 {

// y=1 resets j; a nest without a loop on z is left alone.
// Z-LABEL: func.func @matmul(
// Z: agpu.parallel_for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// Z-NEXT: agpu.parallel_for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} : i32 {

// -----

// `mapping x` on the outer loop puts it on the threads: it gets the x factor, and the inner loop
// (the next free dimension, y) the y factor.
func.func @mapped(%A: memref<?xf32>, %m: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %j = %c0 to %n step %c1 : i32 mapping x {
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

// CHECK-LABEL: func.func @mapped(
// CHECK: agpu.parallel_for %{{.*}} : i32 unroll 2 mapping x {
// CHECK-NEXT: agpu.parallel_for %{{.*}} : i32 unroll 8 {

// -----

// Three levels: z is the outermost. A parallel loop off the chain (here inside a serial loop)
// runs serially in each thread and is not unrolled.
func.func @nest3(%A: memref<?xf32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %k = %c0 to %n step %c1 : i32 {
    agpu.parallel_for %j = %c0 to %n step %c1 : i32 {
      agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
        scf.for %s = %c0 to %n step %c1 : i32 {
          agpu.parallel_for %t = %c0 to %n step %c1 : i32 {
            %v = arith.constant 1.0 : f32
            %ti = arith.index_cast %t : i32 to index
            memref.store %v, %A[%ti] : memref<?xf32>
          }
        }
      }
    }
  }
  func.return
}

// CHECK-LABEL: func.func @nest3(
// CHECK: agpu.parallel_for %{{.*}} : i32 {
// CHECK-NEXT: agpu.parallel_for %{{.*}} : i32 unroll 8 {
// CHECK-NEXT: agpu.parallel_for %{{.*}} : i32 unroll 2 {
// CHECK-NEXT: scf.for
// CHECK-NEXT: agpu.parallel_for %{{.*}} : i32 {

// Z-LABEL: func.func @nest3(
// Z: agpu.parallel_for %{{.*}} : i32 unroll 3 {
// Z-NEXT: agpu.parallel_for %{{.*}} : i32 {
// Z-NEXT: agpu.parallel_for %{{.*}} : i32 {
