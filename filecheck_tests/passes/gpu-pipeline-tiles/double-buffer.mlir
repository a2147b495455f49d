// RUN: autogpu-opt %s --split-input-file -p 'gpu-pipeline-tiles{stages=2}' | filecheck %s
// RUN: autogpu-opt %s --split-input-file -p 'gpu-pipeline-tiles{swizzle=true}' | filecheck %s --check-prefix=SWIZZLE
// RUN: autogpu-opt %s --split-input-file -p 'gpu-pipeline-tiles{stages=2 shared_budget=256}' | filecheck %s --check-prefix=SINGLE
// RUN: autogpu-opt %s --split-input-file -p 'gpu-pipeline-tiles' | filecheck %s --check-prefix=SINGLE

// A loop over tiles as gpu-cache-shared leaves it: the fill versioned on whole tiles, a
// barrier, the compute reading the tile (float4 fragments), a barrier.
// (64 floats: 256 bytes, doubled 512.)
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
// CHECK:       %[[F:.*]] = arith.muli %tx, %c4 : index
//   the prologue: tile lb into buffer 0, whole or ragged, then the one barrier before the loop
// CHECK:       %[[ANY:.*]] = arith.cmpi slt, %c0, %n : index
// CHECK-NEXT:  scf.if %[[ANY]] {
// CHECK:         scf.if %{{.*}} {
// CHECK:           memref.store %{{.*}}, %[[TILE]][%tx] : memref<128xf32, 3 : i32>
// CHECK:         } else {
// CHECK:           memref.store %{{.*}}, %[[TILE]][%tx] : memref<128xf32, 3 : i32>
// CHECK:       "gpu.barrier"() : () -> ()
// CHECK-NEXT:  scf.for %[[KT:.*]] = %c0 to %n step %c64 {
// CHECK:         %[[STAGE:.*]] = arith.remsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %[[OTHER:.*]] = arith.subi %{{.*}}, %[[STAGE]] : index
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %[[KT]], %c64 : index
// CHECK-NEXT:    %[[HAS_NEXT:.*]] = arith.cmpi slt, %[[NEXT]], %n : index
//   the next tile's whole-tile load, issued into a register before the compute
// CHECK:         %[[WHOLE:.*]] = arith.cmpi sle, %{{.*}}, %n : index
// CHECK:         %[[G:.*]] = arith.addi %[[NEXT]], %tx : index
// CHECK:         %[[ISSUE:.*]] = arith.andi %[[WHOLE]], %[[HAS_NEXT]] : i1
// CHECK-NEXT:    %[[STAGED:.*]] = scf.if %[[ISSUE]] -> (f32) {
// CHECK-NEXT:      %[[V:.*]] = memref.load %in[%[[G]]] : memref<?xf32>
// CHECK-NEXT:      scf.yield %[[V]] : f32
// CHECK-NEXT:    } else {
//   the compute reads buffer `stage`
// CHECK:         %[[AT:.*]] = arith.muli %[[STAGE]], %{{.*}} : index
// CHECK-NEXT:    %[[I:.*]] = arith.addi %[[F]], %[[AT]] : index
// CHECK-NEXT:    "agpu.vector_load"(%[[TILE]], %[[I]])
// CHECK:         memref.store %{{.*}}, %acc[] : memref<f32>
//   after it, the register goes to the other buffer (a ragged tile is copied there whole)
// CHECK-NEXT:    scf.if %[[HAS_NEXT]] {
// CHECK-NEXT:      scf.if %[[WHOLE]] {
// CHECK:             %[[TO:.*]] = arith.muli %[[OTHER]], %{{.*}} : index
// CHECK-NEXT:        %[[J:.*]] = arith.addi %tx, %[[TO]] : index
// CHECK-NEXT:        memref.store %[[STAGED]], %[[TILE]][%[[J]]] : memref<128xf32, 3 : i32>
// CHECK-NEXT:      } else {
// CHECK:             memref.load %in[%[[G]]] : memref<?xf32>
// CHECK:             arith.muli %[[OTHER]], %{{.*}} : index
// CHECK:       "gpu.barrier"() : () -> ()
// CHECK-NEXT:  }
// CHECK-NOT:   "gpu.barrier"

// SWIZZLE-LABEL: ^bb0(%in: memref<?xf32>, %out: memref<?xf32>, %n: index):
// SWIZZLE:       %[[TILE:.*]] = memref.alloca() {agpu.align = 16 : i64} : memref<64xf32, 3 : i32>
// SWIZZLE:       scf.for
// SWIZZLE:         %[[HIGH:.*]] = arith.andi %tx, %[[C32:.*]] : index
// SWIZZLE-NEXT:    %[[LOW:.*]] = arith.divui %[[HIGH]], %[[C8:.*]] : index
// SWIZZLE-NEXT:    %[[S:.*]] = arith.xori %tx, %[[LOW]] : index
// SWIZZLE-NEXT:    memref.store %{{.*}}, %[[TILE]][%[[S]]]
// SWIZZLE:       "gpu.barrier"
// SWIZZLE:         %[[FHIGH:.*]] = arith.andi %f, %{{.*}} : index
// SWIZZLE-NEXT:    %[[FLOW:.*]] = arith.divui %[[FHIGH]], %{{.*}} : index
// SWIZZLE-NEXT:    %[[FS:.*]] = arith.xori %f, %[[FLOW]] : index
// SWIZZLE-NEXT:    "agpu.vector_load"(%[[TILE]], %[[FS]])
// SWIZZLE:       "gpu.barrier"

// SINGLE-LABEL: ^bb0(%in: memref<?xf32>, %out: memref<?xf32>, %n: index):
// SINGLE:       memref.alloca() {agpu.align = 16 : i64} : memref<64xf32, 3 : i32>
// SINGLE-NOT:   "gpu.barrier"
// SINGLE:       scf.for
// SINGLE:       "gpu.barrier"
// SINGLE:       "agpu.vector_load"
// SINGLE:       "gpu.barrier"

// -----

// A fill that reads the tile (or a compute that writes it) is no loop over tiles: unchanged.
builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, index) -> (), kernel}> ({
    ^bb0(%io: memref<?xf32>, %n: index):
      %tile = memref.alloca() {agpu.align = 16 : i64} : memref<64xf32, 3 : i32>
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      scf.for %kt = %c0 to %n step %c64 {
        %old = memref.load %tile[%tx] : memref<64xf32, 3 : i32>
        %g = arith.addi %kt, %tx : index
        %v = memref.load %io[%g] : memref<?xf32>
        %s = arith.addf %old, %v : f32
        memref.store %s, %tile[%tx] : memref<64xf32, 3 : i32>
        "gpu.barrier"() : () -> ()
        %x = memref.load %tile[%tx] : memref<64xf32, 3 : i32>
        memref.store %x, %io[%g] : memref<?xf32>
        "gpu.barrier"() : () -> ()
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: ^bb0(%io: memref<?xf32>, %n: index):
// CHECK:       memref.alloca() {agpu.align = 16 : i64} : memref<64xf32, 3 : i32>
// CHECK-NEXT:  "gpu.thread_id"
// CHECK:       scf.for
// CHECK-NEXT:    memref.load %tile[%tx]
// CHECK:         "gpu.barrier"
// CHECK:         "gpu.barrier"
