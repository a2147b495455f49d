// RUN: autogpu-opt %s -p gpu-optimize-guards | filecheck %s

// The lowering's x guard of an un-unrolled kernel sits inside the grid-stride loop over y
// (docs/ir.md); it does not depend on y: tested once, before the loop.
// Input: convert-agpu-to-gpu's kernel (host function left out) for
//   func.func @copy(%A: memref<?xf32>, %m: i32, %n: i32) {
//     %c0 = arith.constant 0 : i32
//     %c1 = arith.constant 1 : i32
//     agpu.parallel_for %j = %c0 to %n step %c1 : i32 {
//       agpu.parallel_for %i = %c0 to %m step %c1 : i32 {
//         %jm = arith.muli %j, %m : i32
//         %c = arith.addi %jm, %i : i32
//         %ii = arith.index_cast %c : i32 to index
//         %v = arith.constant 1.0 : f32
//         memref.store %v, %A[%ii] : memref<?xf32>
//       }
//     }
//     func.return
//   }

// CHECK-LABEL: "gpu.func"
// CHECK: %[[GID:.*]] = arith.addi
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[GID]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: scf.for
// CHECK-NOT: scf.if
// CHECK: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: "gpu.return"
builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, i32, i32) -> (), kernel}> ({
    ^bb0(%A: memref<?xf32>, %m: i32, %n: i32):
      %i_ub = arith.index_cast %m : i32 to index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bdx = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %0 = arith.muli %bx, %bdx : index
      %gid_x = arith.addi %0, %tx : index
      %j_ub = arith.index_cast %n : i32 to index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %gdy = "gpu.grid_dim"() <{dimension = #gpu<dim y>}> : () -> index
      scf.for %j_idx = %by to %j_ub step %gdy {
        %j = arith.index_cast %j_idx : index to i32
        %in_bounds = arith.cmpi slt, %gid_x, %i_ub : index
        scf.if %in_bounds {
          %i = arith.index_cast %gid_x : index to i32
          %jm = arith.muli %j, %m : i32
          %c = arith.addi %jm, %i : i32
          %ii = arith.index_cast %c : i32 to index
          %v = arith.constant 1.000000e+00 : f32
          memref.store %v, %A[%ii] : memref<?xf32>
        }
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "copy_kernel", gpu.known_block_size = array<i32: 256, 1, 1>, gpu.kernel, arg_attrs = [{}, {}, {}]} : () -> ()
  }) : () -> ()
}
