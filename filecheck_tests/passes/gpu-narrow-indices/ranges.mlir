// RUN: autogpu-opt %s -p gpu-narrow-indices | filecheck %s
// RUN: autogpu-opt %s -p 'gpu-narrow-indices{subscripts=false}' | filecheck %s --check-prefix=NOSUB

// gpu-narrow-indices computes in i32 what provably fits there: thread indices and dims (CUDA's
// limits, per dimension), their sums and products, a loop whose bound plus step stays below
// 2^31, and the comparisons of such values; 64-bit users read the sign extension. It leaves in
// `index` what may pass 2^31 (blockIdx.x * blockDim.x, a parameter plus an index, a loop up to
// an `int` bound with a step > 1), and host functions. A subscript of a static-shape (shared)
// array built by + - * is recomputed in wrapping i32 (`(k - k0) * 128 + tx`, whose parts have no
// 32-bit range), since it lies in [0, 2048) whenever the access runs; a subscript of a
// dynamic-shape (global) array is not.

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (i32, i32, memref<?xf32>) -> (), kernel}> ({
    ^bb0(%n: i32, %k0: i32, %a: memref<?xf32>):
      %sh = memref.alloca() : memref<2048xf32, 3 : i32>
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %bdx = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %c16 = arith.constant 16 : index
      %c128 = arith.constant 128 : index
      %c256 = arith.constant 256 : index
      %c2048 = arith.constant 2048 : index
      %row = arith.muli %ty, %c16 : index
      %thread = arith.addi %row, %tx : index
      %ybase = arith.muli %by, %c128 : index
      %xbase = arith.muli %bx, %bdx : index
      %gid = arith.addi %xbase, %tx : index
      %nw = arith.index_cast %n : i32 to index
      %inside = arith.cmpi slt, %gid, %nw : index
      %left = arith.subi %nw, %ybase : index
      scf.for %e = %thread to %c2048 step %c256 {
        %col = arith.remsi %e, %c128 : index
        %f = arith.constant 0.0 : f32
        memref.store %f, %sh[%col] : memref<2048xf32, 3 : i32>
      }
      %c0 = arith.constant 0 : index
      scf.for %t = %c0 to %nw step %c16 {
        %t32 = arith.index_cast %t : index to i32
        %f = arith.constant 1.0 : f32
        memref.store %f, %a[%t] : memref<?xf32>
      }
      %k0w = arith.index_cast %k0 : i32 to index
      %c1 = arith.constant 1 : index
      scf.for %k = %k0w to %nw step %c1 {
        %off = arith.subi %k, %k0w : index
        %scaled = arith.muli %off, %c128 : index
        %at = arith.addi %scaled, %tx : index
        %v = memref.load %sh[%at] : memref<2048xf32, 3 : i32>
        %g = arith.addi %scaled, %gid : index
        memref.store %v, %a[%g] : memref<?xf32>
      }
      %keep = arith.addi %left, %row : index
      %f0 = arith.constant 2.0 : f32
      memref.store %f0, %a[%keep] : memref<?xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
  func.func @host(%n: index) -> index {
    %c1 = arith.constant 1 : index
    %m = arith.addi %n, %c1 : index
    func.return %m : index
  }
}

// CHECK-LABEL: "gpu.func"
// CHECK:         %[[TX:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT:    %[[TX32:.*]] = arith.index_cast %[[TX]] : index to i32
// CHECK:         %[[BX:.*]] = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NOT:     arith.index_cast %[[BX]]
// CHECK:         %[[C128:.*]] = arith.constant 128 : i32
// CHECK:         %[[ROW:.*]] = arith.muli %{{.*}}, %{{.*}} overflow<nsw> : i32
// CHECK-NEXT:    %[[ROWW:.*]] = arith.index_cast %[[ROW]] : i32 to index
// CHECK-NEXT:    %[[THREAD:.*]] = arith.addi %[[ROW]], %[[TX32]] overflow<nsw> : i32
// CHECK-NEXT:    %[[YBASE:.*]] = arith.muli %{{.*}}, %[[C128]] overflow<nsw> : i32
// CHECK-NEXT:    %[[YBASEW:.*]] = arith.index_cast %[[YBASE]] : i32 to index
// CHECK-NEXT:    %[[XBASE:.*]] = arith.muli %[[BX]], %{{.*}} : index
// CHECK-NEXT:    %[[GID:.*]] = arith.addi %[[XBASE]], %[[TX]] : index
// CHECK-NEXT:    %[[NW:.*]] = arith.index_cast %n : i32 to index
// CHECK-NEXT:    %{{.*}} = arith.cmpi slt, %[[GID]], %[[NW]] : index
// CHECK-NEXT:    %[[LEFT:.*]] = arith.subi %[[NW]], %[[YBASEW]] : index
// CHECK-NEXT:    scf.for %[[E:.*]] = %[[THREAD]] to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT:      %[[COL:.*]] = arith.remsi %[[E]], %[[C128]] : i32
// CHECK-NEXT:      %[[COLW:.*]] = arith.index_cast %[[COL]] : i32 to index
// CHECK:           memref.store %{{.*}}, %sh[%[[COLW]]]
// CHECK:         scf.for %[[T:.*]] = %c0 to %[[NW]] step %c16 {
// CHECK:           memref.store %{{.*}}, %a[%[[T]]] : memref<?xf32>
// CHECK:         scf.for %[[K:.*]] = %k0 to %n step %{{.*}} : i32 {
// CHECK-NEXT:      %[[KW:.*]] = arith.index_cast %[[K]] : i32 to index
// CHECK-NEXT:      %[[OFF:.*]] = arith.subi %[[KW]], %{{.*}} : index
// CHECK-NEXT:      %[[SCALED:.*]] = arith.muli %[[OFF]], %c128 : index
// CHECK-NEXT:      %[[OFF32:.*]] = arith.subi %[[K]], %k0 : i32
// CHECK-NEXT:      %[[SCALED32:.*]] = arith.muli %[[OFF32]], %[[C128]] : i32
// CHECK-NEXT:      %[[AT32:.*]] = arith.addi %[[SCALED32]], %[[TX32]] : i32
// CHECK-NEXT:      %[[AT:.*]] = arith.index_cast %[[AT32]] : i32 to index
// CHECK-NEXT:      %{{.*}} = memref.load %sh[%[[AT]]] : memref<2048xf32, 3 : i32>
// CHECK-NEXT:      %[[G:.*]] = arith.addi %[[SCALED]], %[[GID]] : index
// CHECK-NEXT:      memref.store %{{.*}}, %a[%[[G]]] : memref<?xf32>
// CHECK:         %{{.*}} = arith.addi %[[LEFT]], %[[ROWW]] : index
// CHECK-LABEL: func.func @host
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %m = arith.addi %n, %c1 : index

// NOSUB-LABEL: "gpu.func"
// NOSUB:         scf.for %[[K:.*]] = %k0 to %n step %{{.*}} : i32 {
// NOSUB:           %[[AT:.*]] = arith.addi %{{.*}}, %tx : index
// NOSUB-NEXT:      %{{.*}} = memref.load %sh[%[[AT]]] : memref<2048xf32, 3 : i32>
