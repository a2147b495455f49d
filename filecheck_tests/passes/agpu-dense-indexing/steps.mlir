// RUN: autogpu-opt %s -p agpu-dense-indexing | filecheck %s
// RUN: autogpu-opt %s -p 'agpu-dense-indexing{threshold=8}' | filecheck %s --check-prefix=T8
// RUN: autogpu-opt %s -p 'agpu-dense-indexing{mode=dense}' | filecheck %s --check-prefix=DENSE
// RUN: autogpu-opt %s -p 'agpu-dense-indexing{mode=sparse}' | filecheck %s --check-prefix=SPARSE

// The rule: dense iff the constant step is >= threshold (64 by default); a non-constant step
// is dense.

// CHECK-LABEL: func.func @steps
// T8-LABEL: func.func @steps
// DENSE-LABEL: func.func @steps
// SPARSE-LABEL: func.func @steps
func.func @steps(%n: i32, %s: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant 8 : i32
  %c63 = arith.constant 63 : i32
  %c64 = arith.constant 64 : i32
  %c100 = arith.constant 100 : i32
  // CHECK: agpu.parallel_for %{{.*}} = %{{.*}} to %{{.*}} step %c1 : i32 {
  // T8: agpu.parallel_for %{{.*}} = %{{.*}} to %{{.*}} step %c1 : i32 {
  // DENSE: agpu.parallel_for %{{.*}} = %{{.*}} to %{{.*}} step %c1 : i32 indexing dense {
  // SPARSE: agpu.parallel_for %{{.*}} = %{{.*}} to %{{.*}} step %c1 : i32 {
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
  }
  // CHECK: step %c8 : i32 {
  // T8: step %c8 : i32 indexing dense {
  // DENSE: step %c8 : i32 indexing dense {
  // SPARSE: step %c8 : i32 {
  agpu.parallel_for %i = %c0 to %n step %c8 : i32 {
  }
  // CHECK: step %c63 : i32 {
  // T8: step %c63 : i32 indexing dense {
  agpu.parallel_for %i = %c0 to %n step %c63 : i32 {
  }
  // CHECK: step %c64 : i32 indexing dense {
  // T8: step %c64 : i32 indexing dense {
  agpu.parallel_for %i = %c0 to %n step %c64 : i32 {
  }
  // CHECK: step %c100 : i32 indexing dense {
  agpu.parallel_for %i = %c0 to %n step %c100 : i32 {
  }
  // A step known only at run time: dense.
  // CHECK: step %s : i32 indexing dense {
  // T8: step %s : i32 indexing dense {
  // DENSE: step %s : i32 indexing dense {
  // SPARSE: step %s : i32 {
  agpu.parallel_for %i = %c0 to %n step %s : i32 {
  }
  func.return
}

// CHECK-LABEL: func.func @overrides_and_keeps_other_properties
// SPARSE-LABEL: func.func @overrides_and_keeps_other_properties
func.func @overrides_and_keeps_other_properties(%n: i64) {
  %c0 = arith.constant 0 : i64
  %c2 = arith.constant 2 : i64
  %c128 = arith.constant 128 : i64
  // A decision recorded earlier is revised by the rule; unroll and mapping stay.
  // CHECK: step %c2 : i64 unroll 4 mapping x {
  // SPARSE: step %c2 : i64 unroll 4 mapping x {
  agpu.parallel_for %i = %c0 to %n step %c2 : i64 indexing dense unroll 4 mapping x {
    // Nested parallel loops are decided independently.
    // CHECK: step %c128 : i64 indexing dense mapping y {
    // SPARSE: step %c128 : i64 mapping y {
    agpu.parallel_for %j = %c0 to %n step %c128 : i64 mapping y {
    }
  }
  func.return
}
