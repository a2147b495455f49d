// RUN: autogpu-opt %s -p gpu-infer-nsw | filecheck %s

// gpu-infer-nsw adds overflow<nsw> to the kernel arithmetic whose exact result provably fits:
// thread and block ids (< 1024, < 2^31), 32-bit values extended, remainders, loop variables
// between their bounds. What it cannot bound (a product of two 32-bit values in 32 bits, a
// 64-bit parameter) keeps wrapping; host functions are left alone.

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (i32, i32, i64, memref<?xf32>) -> (), kernel}> ({
    ^bb0(%n: i32, %j: i32, %w: i64, %a: memref<?xf32>):
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c512 = arith.constant 512 : index
      %c258 = arith.constant 258 : index
      %c42 = arith.constant 42 : index
      %block = arith.muli %bx, %c512 : index
      %sh = arith.addi %tx, %c258 : index
      %nw = arith.index_cast %n : i32 to index
      %left = arith.subi %nw, %block : index
      %r = arith.remsi %left, %c42 : index
      %r32 = arith.index_cast %r : index to i32
      %c7 = arith.constant 7 : i32
      %small = arith.muli %r32, %c7 : i32
      %big = arith.muli %j, %n : i32
      %ww = arith.addi %w, %w : i64
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      scf.for %k = %c0 to %nw step %c1 {
        %k1 = arith.addi %k, %c1 : index
        %f = arith.constant 0.0 : f32
        memref.store %f, %a[%k1] : memref<?xf32>
      }
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
// CHECK:         %[[BLOCK:.*]] = arith.muli %{{.*}}, %c512 overflow<nsw> : index
// CHECK-NEXT:    %[[SH:.*]] = arith.addi %{{.*}}, %c258 overflow<nsw> : index
// CHECK-NEXT:    %[[NW:.*]] = arith.index_cast %n : i32 to index
// CHECK-NEXT:    %[[LEFT:.*]] = arith.subi %[[NW]], %[[BLOCK]] overflow<nsw> : index
// CHECK:         %[[SMALL:.*]] = arith.muli %{{.*}}, %c7 overflow<nsw> : i32
// CHECK-NEXT:    %[[BIG:.*]] = arith.muli %j, %n : i32
// CHECK-NEXT:    %[[WW:.*]] = arith.addi %w, %w : i64
// CHECK:         scf.for %[[K:.*]] = %c0 to %[[NW]] step %c1 {
// CHECK-NEXT:      %{{.*}} = arith.addi %[[K]], %c1 overflow<nsw> : index
// CHECK-LABEL: func.func @host
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %m = arith.addi %n, %c1 : index
