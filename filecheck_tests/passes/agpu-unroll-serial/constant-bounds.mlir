// RUN: autogpu-opt %s --split-input-file -p agpu-unroll-serial | filecheck %s
// RUN: autogpu-opt %s --split-input-file -p 'agpu-unroll-serial{full_unroll_limit=0}' | filecheck %s --check-prefix=NOFULL
// RUN: autogpu-opt %s --split-input-file -p 'agpu-unroll-serial{factor=1 full_unroll_limit=4}' | filecheck %s --check-prefix=ONLYFULL

// 50 iterations, factor 4: a main loop of 12 x 4 iterations up to the constant 48, and the 2
// remaining iterations as straight-line copies with constant induction values.
// CHECK-LABEL: func.func @fifty
// CHECK: %[[UB:.*]] = arith.constant 48 : i32
// CHECK-NEXT: %[[STEP:.*]] = arith.constant 4 : i32
// CHECK-NEXT: scf.for %[[K:.*]] = %c0 to %[[UB]] step %[[STEP]] : i32 {
// CHECK: }
// CHECK-NEXT: %[[K48:.*]] = arith.constant 48 : i32
// CHECK-NEXT: arith.index_cast %[[K48]] : i32 to index
// CHECK: %[[K49:.*]] = arith.constant 49 : i32
// CHECK-NEXT: arith.index_cast %[[K49]] : i32 to index
// CHECK-NOT: scf.for
// CHECK: func.return
// ONLYFULL-LABEL: func.func @fifty
// ONLYFULL: scf.for %{{.*}} = %c0 to %c50 step %c1 : i32 {
func.func @fifty(%x: memref<?xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c50 = arith.constant 50 : i32
  scf.for %k = %c0 to %c50 step %c1 : i32 {
    %0 = arith.index_cast %k : i32 to index
    %1 = memref.load %x[%0] : memref<?xf32>
    memref.store %1, %x[%0] : memref<?xf32>
  }
  func.return
}

// -----

// 3 iterations (-1, 4, 9) are at most full_unroll_limit (16): no loop is left.
// With full_unroll_limit=0 the count is below the factor, so the loop stays.
// CHECK-LABEL: func.func @three
// CHECK-NOT: scf.for
// CHECK: arith.constant -1 : i64
// CHECK: arith.constant 4 : i64
// CHECK: arith.constant 9 : i64
// CHECK-NOT: arith.constant 14 : i64
// CHECK: func.return
// NOFULL-LABEL: func.func @three
// NOFULL: scf.for
// ONLYFULL-LABEL: func.func @three
// ONLYFULL-NOT: scf.for
// ONLYFULL: func.return
func.func @three(%x: memref<?xi64>) {
  %lb = arith.constant -1 : i64
  %ub = arith.constant 10 : i64
  %c5 = arith.constant 5 : i64
  scf.for %k = %lb to %ub step %c5 : i64 {
    %0 = arith.index_cast %k : i64 to index
    %1 = memref.load %x[%0] : memref<?xi64>
    %2 = arith.addi %1, %k : i64
    memref.store %2, %x[%0] : memref<?xi64>
  }
  func.return
}

// -----

// A loop that never runs is removed; its results are its initial values.
// CHECK-LABEL: func.func @empty
// CHECK-NOT: scf.for
// CHECK: func.return %init : f32
func.func @empty(%init: f32) -> f32 {
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %k = %c4 to %c1 step %c1 iter_args(%a = %init) -> (f32) {
    %2 = arith.addf %a, %a : f32
    scf.yield %2 : f32
  }
  func.return %r : f32
}

// -----

// Constant trip count divisible by the factor: no remainder.
// CHECK-LABEL: func.func @divisible
// CHECK: scf.for
// CHECK-COUNT-4: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: func.return
func.func @divisible(%x: memref<?xf32>, %f: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %k = %c0 to %c64 step %c1 {
    memref.store %f, %x[%k] : memref<?xf32>
  }
  func.return
}

// -----

// 4 iterations over the whole i32 range: fully unrolled by default; without full unrolling,
// factor * step would not fit in i32, so the loop is left alone.
// CHECK-LABEL: func.func @huge_step
// CHECK-NOT: scf.for
// CHECK: arith.constant -2147483648 : i32
// CHECK: arith.constant -1073741824 : i32
// CHECK: arith.constant 0 : i32
// CHECK: arith.constant 1073741824 : i32
// CHECK-NOT: scf.for
// NOFULL-LABEL: func.func @huge_step
// NOFULL: scf.for %{{.*}} = %lb to %ub step %step : i32 {
// NOFULL-NOT: scf.for
func.func @huge_step(%x: memref<?xf32>, %f: f32) {
  %lb = arith.constant -2147483648 : i32
  %ub = arith.constant 2147483647 : i32
  %step = arith.constant 1073741824 : i32
  scf.for %k = %lb to %ub step %step : i32 {
    %0 = arith.index_cast %k : i32 to index
    memref.store %f, %x[%0] : memref<?xf32>
  }
  func.return
}
