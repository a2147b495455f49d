// RUN: autogpu-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @zero_step(%n: i32) {
  %c0 = arith.constant 0 : i32
  agpu.parallel_for %i = %c0 to %n step %c0 : i32 {
  }
  func.return
}
// CHECK: agpu.parallel_for step must be positive, got 0

// -----

func.func @negative_step(%n: i32) {
  %c0 = arith.constant 0 : i32
  %m1 = arith.constant -1 : i32
  agpu.parallel_for %i = %c0 to %n step %m1 : i32 {
  }
  func.return
}
// CHECK: agpu.parallel_for step must be positive, got -1

// -----

func.func @zero_unroll(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 unroll 0 {
  }
  func.return
}
// CHECK: agpu.parallel_for unroll factor must be at least 1, got 0

// -----

func.func @bitwise_on_float(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s = memref.alloca() : memref<f32>
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 reduction(xor %s : memref<f32>) {
  }
  func.return
}
// CHECK: agpu.parallel_for reduction 'xor' needs an integer variable, got f32

// -----

func.func @unsigned_max_on_float(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s = memref.alloca() : memref<f64>
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 reduction(umax %s : memref<f64>) {
  }
  func.return
}
// CHECK: agpu.parallel_for reduction 'umax' needs an integer variable, got f64

// -----

func.func @rank2_reduction(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s = memref.alloca() : memref<4x4xf32>
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 reduction(add %s : memref<4x4xf32>) {
  }
  func.return
}
// CHECK: reduction variable must be a scalar (rank 0) or an array (rank 1) memref, got rank 2

// -----

func.func @mismatched_counts(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s = memref.alloca() : memref<f32>
  "agpu.parallel_for"(%c0, %n, %c1, %s) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>, reductions = [], indexing = #agpu<indexing sparse>, unroll = 1 : i64}> ({
  ^bb0(%i: i32):
    "agpu.yield"() : () -> ()
  }) : (i32, i32, i32, memref<f32>) -> ()
  func.return
}
// CHECK: agpu.parallel_for has 1 reduction variables but 0 reduction operators

// -----

func.func @indvar_type(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  "agpu.parallel_for"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>, reductions = [], indexing = #agpu<indexing sparse>, unroll = 1 : i64}> ({
  ^bb0(%i: i64):
    "agpu.yield"() : () -> ()
  }) : (i32, i32, i32) -> ()
  func.return
}
// CHECK: agpu.parallel_for induction variable must have the type of its bounds (i32), got i64

// -----

func.func @no_indvar(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  "agpu.parallel_for"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>, reductions = [], indexing = #agpu<indexing sparse>, unroll = 1 : i64}> ({
    "agpu.yield"() : () -> ()
  }) : (i32, i32, i32) -> ()
  func.return
}
// CHECK: agpu.parallel_for body must have exactly one argument, the induction variable

// -----

func.func @yield_outside() {
  scf.execute_region {
    "agpu.yield"() : () -> ()
  }
  func.return
}
// CHECK: 'agpu.yield' expects parent op 'agpu.parallel_for'

// -----

func.func @mixed_bound_types(%n: i64) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  "agpu.parallel_for"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>, reductions = [], indexing = #agpu<indexing sparse>, unroll = 1 : i64}> ({
  ^bb0(%i: i32):
    "agpu.yield"() : () -> ()
  }) : (i32, i64, i32) -> ()
  func.return
}
// CHECK: attribute i32 expected from variable 'T', but got i64

// -----

func.func @array_reduction_without_section(%h: memref<?xi32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 reduction(add %h : memref<?xi32>) {
  }
  func.return
}
// CHECK: agpu.parallel_for has 1 array reductions but 0 section bounds (each array reduction has a section [lo : len])

// -----

func.func @unknown_distribution(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  agpu.parallel_for %i = %c0 to %n step %c1 unroll 4 distribution diagonal {
  }
  func.return
}
// CHECK: agpu.parallel_for distribution must be one of cyclic, blocked, got 'diagonal'
