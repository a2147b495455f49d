// RUN: autogpu-opt %s --split-input-file -p convert-agpu-to-gpu | filecheck %s
// RUN: autogpu-opt %s --split-input-file -p 'convert-agpu-to-gpu{block_size=64}' | filecheck %s --check-prefix=B64

// Parallel unrolling as unroll-and-jam: a thread's replicas run one jammed copy of the body when
// its whole tile is in range (no guard inside), the others guarded one by one.

// The k loop has the same bounds for both replicas: one loop; B[k] does not depend on the
// replica and is loaded once; each replica has its own accumulator slot.
func.func @jam_serial_loop(%A: memref<?xf32>, %B: memref<?xf32>, %out: memref<?xf32>, %n: i32, %p: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 unroll 2 {
    %acc = memref.alloca() : memref<f32>
    %zero = arith.constant 0.0 : f32
    memref.store %zero, %acc[] : memref<f32>
    scf.for %k = %c0 to %p step %c1 : i32 {
      %kn = arith.muli %k, %n : i32
      %ai = arith.addi %i, %kn : i32
      %aii = arith.index_cast %ai : i32 to index
      %a = memref.load %A[%aii] : memref<?xf32>
      %ki = arith.index_cast %k : i32 to index
      %b = memref.load %B[%ki] : memref<?xf32>
      %s = memref.load %acc[] : memref<f32>
      %ab = arith.mulf %a, %b : f32
      %t = arith.addf %s, %ab : f32
      memref.store %t, %acc[] : memref<f32>
    }
    %r = memref.load %acc[] : memref<f32>
    %ii = arith.index_cast %i : i32 to index
    memref.store %r, %out[%ii] : memref<?xf32>
  }
  func.return
}

// CHECK-LABEL: "gpu.func"()
// CHECK: %[[UB:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[BDX:.*]] = "gpu.block_dim"() <{dimension = #gpu<dim x>}>
// CHECK: %[[GID:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// The tile is full when its last replica is in range: one test, before anything else.
// CHECK-NEXT: %[[I1X:.*]] = arith.addi %[[GID]], %[[BDX]] overflow<nsw> : index
// CHECK-NEXT: %[[FULL:.*]] = arith.cmpi slt, %[[I1X]], %[[UB]] : index
// CHECK-NEXT: scf.if %[[FULL]] {
// CHECK-NEXT: %[[I0:.*]] = arith.index_cast %[[GID]] : index to i32
// CHECK-NEXT: %[[I1:.*]] = arith.index_cast %[[I1X]] : index to i32
// CHECK-NEXT: %[[ACC0:.*]] = memref.alloca() : memref<f32>
// CHECK-NEXT: %[[ACC1:.*]] = memref.alloca() : memref<f32>
// CHECK-NOT: scf.if
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NOT: scf.for
// CHECK-NOT: scf.if
// CHECK: %[[AI0:.*]] = arith.addi %[[I0]], %[[KN:.*]] : i32
// CHECK-NEXT: %[[AI1:.*]] = arith.addi %[[I1]], %[[KN]] : i32
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<?xf32>
// CHECK-NEXT: memref.load %{{.*}}[%{{.*}}] : memref<?xf32>
// CHECK-NEXT: %{{.*}} = arith.index_cast %[[K]] : i32 to index
// One load of B[k] for both replicas:
// CHECK-NEXT: %[[BK:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<?xf32>
// CHECK-NEXT: memref.load %[[ACC0]][]
// CHECK-NEXT: memref.load %[[ACC1]][]
// CHECK-NEXT: arith.mulf %{{.*}}, %[[BK]] : f32
// CHECK-NEXT: arith.mulf %{{.*}}, %[[BK]] : f32
// CHECK: memref.store %{{.*}}, %[[ACC0]][]
// CHECK-NEXT: memref.store %{{.*}}, %[[ACC1]][]
// CHECK-NEXT: }
// CHECK: memref.store
// CHECK-NEXT: memref.store
// Not full: replica 0 guarded on its own; replica 1 is known out of range here.
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[IN0:.*]] = arith.cmpi slt, %[[GID]], %[[UB]] : index
// CHECK-NEXT: scf.if %[[IN0]] {
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: "gpu.return"

// B64-LABEL: func.func @jam_serial_loop(
// B64: arith.constant 128 : index

// -----

// Unrolling both dimensions: the replicas are the x * y = 4 pairs (i_u, j_v); loads that only
// depend on i (B) or only on j (C) are shared by the replicas that agree on it. The test of the x
// replicas is computed once, before the grid-stride loop over j.
func.func @jam_2d(%A: memref<?xf32>, %B: memref<?xf32>, %C: memref<?xf32>, %m: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %j = %c0 to %n step %c1 : i32 unroll 2 {
    agpu.parallel_for %i = %c0 to %m step %c1 : i32 unroll 2 {
      %bi = arith.index_cast %i : i32 to index
      %b = memref.load %B[%bi] : memref<?xf32>
      %cj = arith.index_cast %j : i32 to index
      %c = memref.load %C[%cj] : memref<?xf32>
      %v = arith.mulf %b, %c : f32
      %jm = arith.muli %j, %m : i32
      %a = arith.addi %i, %jm : i32
      %ai = arith.index_cast %a : i32 to index
      memref.store %v, %A[%ai] : memref<?xf32>
    }
  }
  func.return
}

// CHECK-LABEL: "gpu.func"()
// CHECK: %[[GID:.*]] = arith.addi
// CHECK: %[[X1:.*]] = arith.addi %[[GID]], %{{.*}} : index
// CHECK-NEXT: %[[XFULL:.*]] = arith.cmpi slt, %[[X1]], %{{.*}} : index
// CHECK-NEXT: scf.for %[[J0:.*]] = %{{.*}} to %[[JUB:.*]] step %{{.*}} {
// CHECK-NEXT: %[[J1:.*]] = arith.addi %[[J0]], %{{.*}} : index
// CHECK-NEXT: %[[YFULL:.*]] = arith.cmpi slt, %[[J1]], %[[JUB]] : index
// CHECK-NEXT: %[[FULL:.*]] = arith.andi %[[YFULL]], %[[XFULL]] : i1
// CHECK-NEXT: scf.if %[[FULL]] {
// Two loads of B (one per i), two of C (one per j), four stores.
// CHECK-COUNT-2: memref.load %{{.*}}[%{{.*}}] : memref<?xf32>
// CHECK-NOT: memref.store
// CHECK-COUNT-2: memref.load %{{.*}}[%{{.*}}] : memref<?xf32>
// CHECK-COUNT-4: arith.mulf
// CHECK-NOT: memref.load
// CHECK-COUNT-4: memref.store
// CHECK-NEXT: } else {
// The rest: each j replica with its i replicas inside, each guarded (j replica 0 is bounded by
// the loop).
// CHECK-NEXT: %[[IN00:.*]] = arith.cmpi slt, %[[GID]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[IN00]] {
// CHECK: %[[IN01:.*]] = arith.cmpi slt, %[[X1]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[IN01]] {
// CHECK: %[[IN1:.*]] = arith.cmpi slt, %[[J1]], %[[JUB]] : index
// CHECK-NEXT: scf.if %[[IN1]] {
// CHECK: %[[IN10:.*]] = arith.cmpi slt, %[[GID]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[IN10]] {
// CHECK: %[[IN11:.*]] = arith.cmpi slt, %[[X1]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[IN11]] {

// -----

// A serial loop whose trip count depends on the unrolled index is not jammed: one loop per
// replica, while the code around it still is.
func.func @triangle(%A: memref<?xf32>, %out: memref<?xf32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 unroll 2 {
    %s = memref.alloca() : memref<f32>
    %zero = arith.constant 0.0 : f32
    memref.store %zero, %s[] : memref<f32>
    scf.for %k = %c0 to %i step %c1 : i32 {
      %ki = arith.index_cast %k : i32 to index
      %a = memref.load %A[%ki] : memref<?xf32>
      %t = memref.load %s[] : memref<f32>
      %u = arith.addf %t, %a : f32
      memref.store %u, %s[] : memref<f32>
    }
    %r = memref.load %s[] : memref<f32>
    %ii = arith.index_cast %i : i32 to index
    memref.store %r, %out[%ii] : memref<?xf32>
  }
  func.return
}

// CHECK-LABEL: "gpu.func"()
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: %[[I0:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK-NEXT: %[[I1:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[I0]] step
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[I1]] step
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xf32>
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xf32>
// CHECK-NEXT: } else {

// -----

// A reduction: each replica accumulates into its own private copy (they are never updated in an
// interleaved order), folded into the thread's copy before the block's tree.
func.func @sum(%x: memref<?xf32>, %out: memref<?xf32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s = memref.alloca() : memref<f32>
  %zero = arith.constant 0.0 : f32
  memref.store %zero, %s[] : memref<f32>
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 unroll 2 reduction(add %s : memref<f32>) {
    %ii = arith.index_cast %i : i32 to index
    %v = memref.load %x[%ii] : memref<?xf32>
    %t = memref.load %s[] : memref<f32>
    %u = arith.addf %t, %v : f32
    memref.store %u, %s[] : memref<f32>
  }
  %r = memref.load %s[] : memref<f32>
  %c0i = arith.constant 0 : index
  memref.store %r, %out[%c0i] : memref<?xf32>
  func.return
}

// CHECK-LABEL: sym_name = "sum_kernel0"
// CHECK: %[[P0:.*]] = memref.alloca() : memref<f32>
// CHECK: %[[P1:.*]] = memref.alloca() : memref<f32>
// CHECK-NEXT: %[[ID:.*]] = arith.constant -0.000000e+00 : f32
// CHECK-NEXT: memref.store %[[ID]], %[[P1]][]
// CHECK: scf.if
// CHECK: memref.load %[[P0]][]
// CHECK-NEXT: memref.load %[[P1]][]
// CHECK: memref.store %{{.*}}, %[[P0]][]
// CHECK-NEXT: memref.store %{{.*}}, %[[P1]][]
// CHECK: } else {
// CHECK: memref.store %{{.*}}, %[[P0]][]
// Combined before the tree:
// CHECK: %[[A:.*]] = memref.load %[[P0]][]
// CHECK-NEXT: %[[B:.*]] = memref.load %[[P1]][]
// CHECK-NEXT: %[[AB:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT: memref.store %[[AB]], %[[P0]][]
// CHECK: "gpu.barrier"

// -----

// An if on a condition the same for all replicas is one if; a result every replica yields alike
// is yielded once.
func.func @uniform_if(%A: memref<?xf32>, %B: memref<?xf32>, %n: i32, %m: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 unroll 2 {
    %big = arith.cmpi sgt, %m, %c1 : i32
    %r = scf.if %big -> (f32) {
      %z = arith.constant 0 : index
      %v = memref.load %B[%z] : memref<?xf32>
      scf.yield %v : f32
    } else {
      %zero = arith.constant 0.0 : f32
      scf.yield %zero : f32
    }
    %ii = arith.index_cast %i : i32 to index
    memref.store %r, %A[%ii] : memref<?xf32>
  }
  func.return
}

// (The host of @sum ends the previous module.)
// CHECK-LABEL: func.func @sum(
// CHECK: "gpu.func"()
// CHECK: scf.if %{{.*}} {
// CHECK: %[[R:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: memref.load
// CHECK-NEXT: scf.yield %{{.*}} : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: arith.constant
// CHECK-NEXT: scf.yield %{{.*}} : f32
// CHECK-NEXT: }
// CHECK: memref.store %[[R]]
// CHECK-NEXT: memref.store %[[R]]
// CHECK-NEXT: } else {
