// RUN: autogpu-opt %s -p convert-agpu-to-gpu,gpu-optimize-guards | filecheck %s

// The lowering's x guard of an un-unrolled kernel sits inside the grid-stride loop over y
// (docs/ir.md); it does not depend on y: tested once, before the loop.
func.func @copy(%A: memref<?xf32>, %m: i32, %n: i32) {
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

// CHECK: %[[GID:.*]] = arith.addi
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[GID]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: scf.for
// CHECK-NOT: scf.if
// CHECK: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: "gpu.return"
