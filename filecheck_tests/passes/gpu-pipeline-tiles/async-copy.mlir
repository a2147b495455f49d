// RUN: autogpu-opt %s -p 'gpu-pipeline-tiles{stages=2 async_copy=true}' | filecheck %s
// RUN: autogpu-opt %s -p 'gpu-pipeline-tiles{stages=2}' | filecheck %s --check-prefix=REGISTERS

// A loop over tiles as gpu-cache-shared leaves it (the fill versioned on whole tiles): with
// async_copy, the next whole tile goes to the other buffer by `agpu.async_copy` before the
// compute (no loaded value staged), the ragged copy runs after it only when the tile is not
// whole, and `agpu.async_wait` comes right before the one barrier.

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, memref<?xf32>, index) -> (), kernel}> ({
    ^bb0(%in: memref<?xf32>, %out: memref<?xf32>, %n: index):
      %tile = memref.alloca() {agpu.align = 16 : i64} : memref<64xf32, 3 : i32>
      %acc = memref.alloca() : memref<f32>
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %c64 = arith.constant 64 : index
      %f = arith.muli %tx, %c4 : index
      scf.for %kt = %c0 to %n step %c64 {
        %end = arith.addi %kt, %c64 : index
        %whole = arith.cmpi sle, %end, %n : index
        %g = arith.addi %kt, %tx : index
        scf.if %whole {
          %v = memref.load %in[%g] : memref<?xf32>
          memref.store %v, %tile[%tx] : memref<64xf32, 3 : i32>
        } else {
          %inside = arith.cmpi slt, %g, %n : index
          scf.if %inside {
            %w = memref.load %in[%g] : memref<?xf32>
            memref.store %w, %tile[%tx] : memref<64xf32, 3 : i32>
          }
        }
        "gpu.barrier"() : () -> ()
        %a, %b, %c, %d = "agpu.vector_load"(%tile, %f) : (memref<64xf32, 3 : i32>, index) -> (f32, f32, f32, f32)
        %s0 = memref.load %acc[] : memref<f32>
        %ab = arith.addf %a, %b : f32
        %cd = arith.addf %c, %d : f32
        %abcd = arith.addf %ab, %cd : f32
        %s1 = arith.addf %s0, %abcd : f32
        memref.store %s1, %acc[] : memref<f32>
        "gpu.barrier"() : () -> ()
      }
      %r = memref.load %acc[] : memref<f32>
      memref.store %r, %out[%tx] : memref<?xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}





// CHECK-LABEL: ^bb0(%in: memref<?xf32>, %out: memref<?xf32>, %n: index):
// CHECK:       %[[TILE:.*]] = memref.alloca() {agpu.align = 16 : i64} : memref<128xf32, 3 : i32>
// CHECK:       scf.for %[[KT:.*]] = %{{.*}} to %n step %[[C64:.*]] {
// CHECK:         %[[STAGE:.*]] = arith.remsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %[[OTHER:.*]] = arith.subi %{{.*}}, %[[STAGE]] : index
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %[[KT]], %[[C64]] : index
// CHECK-NEXT:    %[[HAS_NEXT:.*]] = arith.cmpi slt, %[[NEXT]], %n : index
// CHECK:         %[[WHOLE:.*]] = arith.cmpi sle, %{{.*}}, %n : index
// CHECK-NEXT:    %[[G:.*]] = arith.addi %[[NEXT]], %tx : index
// CHECK-NEXT:    %[[ISSUE:.*]] = arith.andi %[[WHOLE]], %[[HAS_NEXT]] : i1
// CHECK-NEXT:    scf.if %[[ISSUE]] {
// CHECK-NEXT:      %[[STRIDE:.*]] = arith.constant 64 : index
// CHECK-NEXT:      %[[BASE:.*]] = arith.muli %[[OTHER]], %[[STRIDE]] : index
// CHECK-NEXT:      %[[DST:.*]] = arith.addi %tx, %[[BASE]] : index
// CHECK-NEXT:      "agpu.async_copy"(%[[TILE]], %[[DST]], %in, %[[G]]) : (memref<128xf32, 3 : i32>, index, memref<?xf32>, index) -> ()
// CHECK-NEXT:    }
// CHECK:         "agpu.vector_load"(%[[TILE]], %{{.*}})
// CHECK:         scf.if %[[HAS_NEXT]] {
// CHECK-NEXT:      %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:      %[[RAGGED:.*]] = arith.xori %[[WHOLE]], %[[TRUE]] : i1
// CHECK-NEXT:      scf.if %[[RAGGED]] {
// CHECK:             memref.store %{{.*}}, %[[TILE]][%{{.*}}] : memref<128xf32, 3 : i32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  "agpu.async_wait"() : () -> ()
// CHECK-NEXT:    "gpu.barrier"() : () -> ()
// CHECK-NEXT:  }

// REGISTERS-NOT: agpu.async
// REGISTERS:     %{{.*}} = scf.if %{{.*}} -> (f32) {
