// RUN: autogpu-opt %s --split-input-file -p agpu-stage-accumulations | filecheck %s

// Constant bounds that run: no guard.
// CHECK-LABEL: func.func @constant_bounds
// CHECK: %[[ACC:.*]] = memref.alloca() {{.*}}: memref<f32>
// CHECK-NOT: scf.if
// CHECK: %[[INIT:.*]] = memref.load %A[%{{.*}}] : memref<?xf32>
// CHECK-NEXT: memref.store %[[INIT]], %[[ACC]][] : memref<f32>
// CHECK-NEXT: scf.for
// CHECK: memref.load %[[ACC]][]
// CHECK: memref.store %{{.*}}, %[[ACC]][]
// CHECK-NEXT: }
// CHECK-NEXT: %[[FINAL:.*]] = memref.load %[[ACC]][] : memref<f32>
// CHECK-NEXT: memref.store %[[FINAL]], %A[%{{.*}}] : memref<?xf32>
// CHECK-NEXT: func.return
func.func @constant_bounds(%A: memref<?xf32> {agpu.restrict}, %x: memref<?xf32>, %t: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c10 = arith.constant 10 : i32
  scf.for %k = %c0 to %c10 step %c1 : i32 {
    %0 = arith.index_cast %k : i32 to index
    %1 = memref.load %x[%0] : memref<?xf32>
    %2 = arith.addi %t, %c1 : i32
    %3 = arith.index_cast %2 : i32 to index
    %4 = memref.load %A[%3] : memref<?xf32>
    %5 = arith.addf %4, %1 : f32
    memref.store %5, %A[%3] : memref<?xf32>
  }
  func.return
}

// -----

// conv2d's shape: the element is invariant in both the v and the u loop, so it is staged
// across the outermost (v); the guard tests each loop once.
// CHECK-LABEL: func.func @nest
// CHECK: %[[ACC:.*]] = memref.alloca() {{.*}}: memref<f32>
// CHECK-NEXT: %[[RUNS:.*]] = arith.cmpi slt, %c0, %t : i32
// CHECK-NEXT: scf.if %[[RUNS]] {
// CHECK: memref.load %out[
// CHECK-NEXT: memref.store %{{.*}}, %[[ACC]][]
// CHECK-NEXT: scf.for %v = 
// CHECK-NEXT: scf.for %u = 
// CHECK-NOT: %out[
// CHECK: }
// CHECK-NEXT: }
// CHECK-NEXT: memref.load %[[ACC]][]
// CHECK-NEXT: memref.store %{{.*}}, %out[
func.func @nest(%out: memref<?xf32> {agpu.name = "out", agpu.restrict}, %in: memref<?xf32>, %i: i32, %t: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %v = %c0 to %t step %c1 : i32 {
    scf.for %u = %c0 to %t step %c1 : i32 {
      %0 = arith.muli %v, %t : i32
      %1 = arith.addi %u, %0 : i32
      %2 = arith.index_cast %1 : i32 to index
      %3 = memref.load %in[%2] : memref<?xf32>
      %4 = arith.index_cast %i : i32 to index
      %5 = memref.load %out[%4] : memref<?xf32>
      %6 = arith.addf %5, %3 : f32
      memref.store %6, %out[%4] : memref<?xf32>
    }
  }
  func.return
}

// -----

// A triangular nest: the inner loop's bound depends on v, so the guard could not be computed
// before the v loop; the element is staged across u only, inside v.
// CHECK-LABEL: func.func @triangular
// CHECK: scf.for %v =
// CHECK-NEXT: %[[ACC:.*]] = memref.alloca() {{.*}}: memref<f32>
// CHECK-NEXT: %[[RUNS:.*]] = arith.cmpi slt, %c0, %v : i32
// CHECK-NEXT: scf.if %[[RUNS]] {
// CHECK: scf.for %u = %c0 to %v
func.func @triangular(%out: memref<?xf32> {agpu.restrict}, %in: memref<?xf32>, %t: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %i0 = arith.constant 0 : index
  scf.for %v = %c0 to %t step %c1 : i32 {
    scf.for %u = %c0 to %v step %c1 : i32 {
      %2 = arith.index_cast %u : i32 to index
      %3 = memref.load %in[%2] : memref<?xf32>
      %5 = memref.load %out[%i0] : memref<?xf32>
      %6 = arith.addf %5, %3 : f32
      memref.store %6, %out[%i0] : memref<?xf32>
    }
  }
  func.return
}

// -----

// A non-restrict store in the outer loop's body blocks staging across it, not across the
// inner loop (the outermost legal loop is chosen).
// CHECK-LABEL: func.func @outer_blocked
// CHECK: scf.for %v =
// CHECK: memref.store %{{.*}}, %B[
// CHECK: memref.alloca() {{.*}}: memref<f32>
// CHECK: scf.for %u =
func.func @outer_blocked(%A: memref<?xf32>, %B: memref<?xf32>, %t: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %f0 = arith.constant 0.0 : f32
  %i0 = arith.constant 0 : index
  scf.for %v = %c0 to %t step %c1 : i32 {
    %vv = arith.index_cast %v : i32 to index
    memref.store %f0, %B[%vv] : memref<?xf32>
    scf.for %u = %c0 to %t step %c1 : i32 {
      %5 = memref.load %A[%i0] : memref<?xf32>
      %6 = arith.addf %5, %5 : f32
      memref.store %6, %A[%i0] : memref<?xf32>
    }
  }
  func.return
}

// -----

// Other accesses to A at provably different elements (idx + 1, idx - 1 through a separately
// computed index) do not prevent staging, and stay as they are. The index of the store is
// computed apart from the load's: structurally equal atoms are the same element.
// CHECK-LABEL: func.func @neighbours
// CHECK: %[[ACC:.*]] = memref.alloca() {{.*}}: memref<f32>
// CHECK: scf.for
// CHECK-DAG: memref.load %A[%{{.*}}] : memref<?xf32>
// CHECK-DAG: memref.store %{{.*}}, %A[%{{.*}}] : memref<?xf32>
// CHECK-DAG: memref.load %[[ACC]][]
// CHECK-DAG: memref.store %{{.*}}, %[[ACC]][]
// CHECK: }
func.func @neighbours(%A: memref<?xf32> {agpu.restrict}, %j: i32, %m: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %k = %c0 to %n step %c1 : i32 {
    %0 = arith.muli %j, %m : i32
    %1 = arith.addi %0, %c1 : i32
    %2 = arith.index_cast %1 : i32 to index
    %3 = memref.load %A[%2] : memref<?xf32>
    %jm = arith.muli %j, %m : i32
    %4 = arith.index_cast %jm : i32 to index
    %5 = memref.load %A[%4] : memref<?xf32>
    %6 = arith.addf %5, %3 : f32
    %jm2 = arith.muli %j, %m : i32
    %7 = arith.index_cast %jm2 : i32 to index
    memref.store %6, %A[%7] : memref<?xf32>
    %8 = arith.subi %jm2, %c1 : i32
    %9 = arith.index_cast %8 : i32 to index
    memref.store %6, %A[%9] : memref<?xf32>
  }
  func.return
}

// -----

// Two accumulators in the same array, at idx and idx + 1: both staged.
// CHECK-LABEL: func.func @two_accumulators
// CHECK: %[[ACC1:.*]] = memref.alloca() {{.*}}: memref<f64>
// CHECK: %[[ACC2:.*]] = memref.alloca() {{.*}}: memref<f64>
// CHECK: scf.for
// CHECK-NOT: %A[
// CHECK: }
func.func @two_accumulators(%A: memref<?xf64> {agpu.restrict}, %x: memref<?xf64>, %n: i64, %i: i64) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  scf.for %k = %c0 to %n step %c1 : i64 {
    %0 = arith.index_cast %k : i64 to index
    %1 = memref.load %x[%0] : memref<?xf64>
    %2 = arith.index_cast %i : i64 to index
    %3 = memref.load %A[%2] : memref<?xf64>
    %4 = arith.addf %3, %1 : f64
    memref.store %4, %A[%2] : memref<?xf64>
    %5 = arith.addi %i, %c1 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = memref.load %A[%6] : memref<?xf64>
    %8 = arith.mulf %7, %1 : f64
    memref.store %8, %A[%6] : memref<?xf64>
  }
  func.return
}

// -----

// A local array never aliases a parameter, even a non-restrict one that the loop writes.
// CHECK-LABEL: func.func @local_array
// CHECK: %[[H:.*]] = memref.alloca() : memref<16xi32>
// CHECK: %{{.*}} = memref.alloca() {{.*}}: memref<i32>
// CHECK: scf.for
func.func @local_array(%B: memref<?xi32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %i3 = arith.constant 3 : index
  %h = memref.alloca() : memref<16xi32>
  scf.for %k = %c0 to %n step %c1 : i32 {
    %0 = arith.index_cast %k : i32 to index
    %1 = memref.load %h[%i3] : memref<16xi32>
    %2 = arith.addi %1, %k : i32
    memref.store %2, %h[%i3] : memref<16xi32>
    memref.store %2, %B[%0] : memref<?xi32>
  }
  func.return
}

// -----

// A loop with loop-carried values moves into the guard, which yields its results (the initial
// values when it does not run).
// CHECK-LABEL: func.func @iter_args
// CHECK: %[[R:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK: %[[L:.*]] = scf.for {{.*}} iter_args
// CHECK: scf.yield %[[L]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %init : f32
// CHECK: func.return %[[R]] : f32
func.func @iter_args(%A: memref<?xf32> {agpu.restrict}, %n: index, %init: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%s = %init) -> (f32) {
    %5 = memref.load %A[%c0] : memref<?xf32>
    %6 = arith.addf %5, %s : f32
    memref.store %6, %A[%c0] : memref<?xf32>
    scf.yield %6 : f32
  }
  func.return %r : f32
}
