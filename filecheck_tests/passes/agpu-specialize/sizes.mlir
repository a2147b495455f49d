// RUN: autogpu-opt %s --split-input-file -p 'agpu-specialize{sizes="m=2048,n=64"}' | filecheck %s
// RUN: autogpu-opt %s --split-input-file -p 'agpu-specialize{sizes="m=2048 n=64" fold=false}' | filecheck %s --check-prefix=NOFOLD

// Every use of m and n becomes a constant; the signature stays (callers still pass m and n),
// and the function records the values its code now requires.
func.func @copy(%A: memref<?xf32> {agpu.name = "A"}, %m: i32 {agpu.name = "m", agpu.ctype = "int"}, %n: i32 {agpu.name = "n", agpu.ctype = "int"}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %last = arith.subi %m, %c1 : i32
  agpu.parallel_for %j = %c0 to %n step %c1 : i32 {
    agpu.parallel_for %i = %c0 to %last step %c1 : i32 {
      %jm = arith.muli %j, %m : i32
      %c = arith.addi %jm, %i : i32
      %ii = arith.index_cast %c : i32 to index
      %v = arith.constant 1.0 : f32
      memref.store %v, %A[%ii] : memref<?xf32>
    }
  }
  func.return
}

// CHECK-LABEL: func.func @copy(
// CHECK-SAME: %{{[^:]*}}: memref<?xf32> {agpu.name = "A"}, %{{[^:]*}}: i32 {agpu.name = "m", agpu.ctype = "int"}, %{{[^:]*}}: i32 {agpu.name = "n", agpu.ctype = "int"})
// CHECK-SAME: attributes {agpu.requires = {m = 2048 : i64, n = 64 : i64}}
// CHECK-DAG: %[[M:.*]] = arith.constant 2048 : i32
// CHECK-DAG: %[[N:.*]] = arith.constant 64 : i32
// CHECK-DAG: %[[LAST:.*]] = arith.constant 2047 : i32
// CHECK: agpu.parallel_for %{{.*}} = %{{.*}} to %[[N]] step
// CHECK: agpu.parallel_for %{{.*}} = %{{.*}} to %[[LAST]] step
// CHECK: arith.muli %{{.*}}, %[[M]] : i32

// Without folding the constants just replace the parameters.
// NOFOLD-LABEL: func.func @copy(
// NOFOLD-NEXT: %[[N:.*]] = arith.constant 64 : i32
// NOFOLD-NEXT: %[[M:.*]] = arith.constant 2048 : i32
// NOFOLD: arith.subi %[[M]], %{{.*}} : i32

// -----

// Only the functions that have the parameter are specialised; an unsigned parameter takes
// values up to 2^32 - 1 (held in the signless i32 as its two's complement).
func.func @one(%m: i32 {agpu.name = "m", agpu.ctype = "int"}, %A: memref<?xi32> {agpu.name = "A"}) {
  %c0 = arith.constant 0 : index
  memref.store %m, %A[%c0] : memref<?xi32>
  func.return
}
func.func @other(%k: i32 {agpu.name = "k", agpu.ctype = "int"}, %A: memref<?xi32> {agpu.name = "A"}) {
  %c0 = arith.constant 0 : index
  memref.store %k, %A[%c0] : memref<?xi32>
  func.return
}
func.func @unsigned(%n: i32 {agpu.name = "n", agpu.ctype = "unsigned"}, %A: memref<?xi32> {agpu.name = "A"}) {
  %c0 = arith.constant 0 : index
  memref.store %n, %A[%c0] : memref<?xi32>
  func.return
}

// CHECK-LABEL: func.func @one(
// CHECK-SAME: attributes {agpu.requires = {m = 2048 : i64}}
// CHECK: %[[M:.*]] = arith.constant 2048 : i32
// CHECK: memref.store %[[M]]
// CHECK-LABEL: func.func @other(
// CHECK-NOT: agpu.requires
// CHECK: memref.store %k
// CHECK-LABEL: func.func @unsigned(
// CHECK-SAME: attributes {agpu.requires = {n = 64 : i64}}
