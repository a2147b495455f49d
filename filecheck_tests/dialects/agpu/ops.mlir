// RUN: AUTOGPU_ROUNDTRIP
// RUN: AUTOGPU_GENERIC_ROUNDTRIP

// CHECK-LABEL: func.func @plain
func.func @plain(%A: memref<?xf32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // CHECK: agpu.parallel_for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
  // CHECK-NEXT: arith.index_cast %[[I]] : i32 to index
  // CHECK-NOT: agpu.yield
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
    %ii = arith.index_cast %i : i32 to index
    %v = memref.load %A[%ii] : memref<?xf32>
  }
  func.return
}

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "plain"
// CHECK-GENERIC: "agpu.parallel_for"(%{{.*}}, %{{.*}}, %{{.*}}) <{reductions = [], indexing = #agpu<indexing sparse>, unroll = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}> ({
// CHECK-GENERIC-NEXT: ^{{.*}}(%{{.*}}: i32):
// CHECK-GENERIC: "agpu.yield"() : () -> ()
// CHECK-GENERIC: }) : (i32, i32, i32) -> ()

// -----

// CHECK-LABEL: func.func @index_bounds
func.func @index_bounds(%n: index) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  // CHECK: agpu.parallel_for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
  agpu.parallel_for %i = %c0 to %n step %c2 {
  }
  func.return
}

// -----

// CHECK-LABEL: func.func @all_properties
func.func @all_properties(%n: i64) {
  %c0 = arith.constant 0 : i64
  %c4 = arith.constant 4 : i64
  // CHECK: agpu.parallel_for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} : i64 indexing dense unroll 8 mapping y {
  agpu.parallel_for %i = %c0 to %n step %c4 : i64 indexing dense unroll 8 mapping y {
  }
  func.return
}

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "all_properties"
// CHECK-GENERIC: indexing = #agpu<indexing dense>, unroll = 8 : i64, mapping = #gpu<dim y>

// -----

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: memref<?xf32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // CHECK: %[[S:.*]] = memref.alloca() : memref<f32>
  // CHECK: %[[B:.*]] = memref.alloca() : memref<i32>
  // CHECK: %[[H:.*]] = memref.alloca() : memref<16xi64>
  %s = memref.alloca() : memref<f32>
  %b = memref.alloca() : memref<i32>
  %h = memref.alloca() : memref<16xi64>
  // An array reduction reduces a section [lo : len] of its array (index values).
  // CHECK: %[[LO:.*]] = arith.constant 2 : index
  // CHECK: %[[LEN:.*]] = arith.constant 8 : index
  %lo = arith.constant 2 : index
  %len = arith.constant 8 : index
  // CHECK: agpu.parallel_for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} : i32 reduction(add %[[S]] : memref<f32>, xor %[[B]] : memref<i32>, max %[[H]][%[[LO]] : %[[LEN]]] : memref<16xi64>) {
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 reduction(add %s : memref<f32>, xor %b : memref<i32>, max %h[%lo : %len] : memref<16xi64>) {
  }
  func.return
}

// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "reductions"
// CHECK-GENERIC: "agpu.parallel_for"({{.*}}) <{reductions = [#agpu<reduction add>, #agpu<reduction xor>, #agpu<reduction max>], {{.*}}operandSegmentSizes = array<i32: 1, 1, 1, 3, 2>}>

// -----

// Every OpenMP reduction operator has a keyword; an integer min/max has a signed and an
// unsigned one (umin, umax).
// CHECK-LABEL: func.func @all_reduction_kinds
func.func @all_reduction_kinds(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %f = memref.alloca() : memref<f64>
  %k = memref.alloca() : memref<i32>
  // CHECK: reduction(add %{{.*}} : memref<f64>, sub %{{.*}} : memref<f64>, mul %{{.*}} : memref<f64>, min %{{.*}} : memref<f64>, max %{{.*}} : memref<f64>, land %{{.*}} : memref<f64>, lor %{{.*}} : memref<f64>, and %{{.*}} : memref<i32>, or %{{.*}} : memref<i32>, xor %{{.*}} : memref<i32>, umin %{{.*}} : memref<i32>, umax %{{.*}} : memref<i32>)
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 reduction(add %f : memref<f64>, sub %f : memref<f64>, mul %f : memref<f64>, min %f : memref<f64>, max %f : memref<f64>, land %f : memref<f64>, lor %f : memref<f64>, and %k : memref<i32>, or %k : memref<i32>, xor %k : memref<i32>, umin %k : memref<i32>, umax %k : memref<i32>) {
  }
  func.return
}

// -----

// Nested parallel loops (collapse(2)) with a serial loop inside, the MATMUL shape.
// CHECK-LABEL: func.func @nest
func.func @nest(%m: i32, %n: i32, %p: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // CHECK: agpu.parallel_for %[[J:.*]] = {{.*}} : i32 {
  // CHECK-NEXT: agpu.parallel_for %[[I:.*]] = {{.*}} : i32 {
  // CHECK-NEXT: scf.for
  agpu.parallel_for %j = %c0 to %n step %c1 : i32 {
    agpu.parallel_for %i = %c0 to %m step %c1 : i32 {
      scf.for %k = %c0 to %p step %c1 : i32 {
      }
    }
  }
  func.return
}

// A <math.h> function without a math op: the float form on f32, an int parameter as i32.
// CHECK-LABEL: func.func @math_call
func.func @math_call(%x: f32, %e: i32, %d: f64) -> (f32, f64, i32) {
  // CHECK-NEXT: %{{.*}} = "agpu.math_call"(%{{.*}}, %{{.*}}) <{function = "ldexp"}> : (f32, i32) -> f32
  %r = "agpu.math_call"(%x, %e) <{function = "ldexp"}> : (f32, i32) -> f32
  // CHECK-NEXT: "agpu.math_call"(%{{.*}}) <{function = "erfc"}> : (f64) -> f64
  %s = "agpu.math_call"(%d) <{function = "erfc"}> : (f64) -> f64
  // CHECK-NEXT: "agpu.math_call"(%{{.*}}) <{function = "ilogb"}> : (f64) -> i32
  %t = "agpu.math_call"(%d) <{function = "ilogb"}> : (f64) -> i32
  func.return %r, %s, %t : f32, f64, i32
}
