// RUN: autogpu-opt %s -p 'agpu-specialize{sizes="n=4294967295"}' | filecheck %s

// The largest `unsigned`: -1 in the signless i32, required as 4294967295.
func.func @unsigned(%n: i32 {agpu.name = "n", agpu.ctype = "unsigned"}, %A: memref<?xi32> {agpu.name = "A"}) {
  %c0 = arith.constant 0 : index
  memref.store %n, %A[%c0] : memref<?xi32>
  func.return
}

// CHECK-LABEL: func.func @unsigned(
// CHECK-SAME: attributes {agpu.requires = {n = 4294967295 : i64}}
// CHECK: %[[N:.*]] = arith.constant -1 : i32
// CHECK: memref.store %[[N]]
