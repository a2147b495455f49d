// RUN: autogpu-opt %s --split-input-file -p 'gpu-warp-tile{x=8}' | filecheck %s
// RUN: autogpu-opt %s --split-input-file -p 'gpu-warp-tile{x=4}' | filecheck %s --check-prefix=X4
// RUN: autogpu-opt %s --split-input-file -p 'gpu-warp-tile' | filecheck %s --check-prefix=OFF
// RUN: not autogpu-opt %s --split-input-file -p 'gpu-warp-tile{x=3}' 2>&1 | filecheck %s --check-prefix=BAD

// A 16 x 16 block with blocked 8 x 8 register tiles, as the lowering and gpu-cache-shared leave
// it: the fragments read at threadIdx.x * 8 and threadIdx.y * 8, a cooperative copy indexed by
// the linear thread threadIdx.y * 16 + threadIdx.x.
builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, memref<?xf32>) -> (), kernel}> ({
    ^bb0(%in: memref<?xf32>, %out: memref<?xf32>):
      %tile = memref.alloca() : memref<256xf32, 3 : i32>
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %row = arith.muli %ty, %c16 : index
      %thread = arith.addi %row, %tx : index
      %v = memref.load %in[%thread] : memref<?xf32>
      memref.store %v, %tile[%thread] : memref<256xf32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %fx = arith.muli %tx, %c8 : index
      %fy = arith.muli %ty, %c8 : index
      %a = memref.load %tile[%fx] : memref<256xf32, 3 : i32>
      %b = memref.load %tile[%fy] : memref<256xf32, 3 : i32>
      %ab = arith.mulf %a, %b : f32
      %o = arith.addi %fy, %tx : index
      memref.store %ab, %out[%o] : memref<?xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k", gpu.known_block_size = array<i32: 16, 16, 1>} : () -> ()
  }) : () -> ()
}

// lane l of warp w is logical thread ((w % 2) * 8 + l % 8, (w / 2) * 4 + l / 8)
// CHECK-LABEL: ^bb0(%in: memref<?xf32>, %out: memref<?xf32>):
// CHECK-NEXT:    %[[TX:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT:    %[[TY:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
// CHECK-NEXT:    %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[ROW0:.*]] = arith.muli %[[TY]], %[[C16]] : index
// CHECK-NEXT:    %[[LINEAR:.*]] = arith.addi %[[ROW0]], %[[TX]] : index
// CHECK-NEXT:    %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT:    %[[LANE:.*]] = arith.remsi %[[LINEAR]], %[[C32]] : index
// CHECK-NEXT:    %[[C32_1:.*]] = arith.constant 32 : index
// CHECK-NEXT:    %[[WARP:.*]] = arith.divsi %[[LINEAR]], %[[C32_1]] : index
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[WCOL:.*]] = arith.remsi %[[WARP]], %[[C2]] : index
// CHECK-NEXT:    %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[WX:.*]] = arith.muli %[[WCOL]], %[[C8]] : index
// CHECK-NEXT:    %[[C8_1:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[LX:.*]] = arith.remsi %[[LANE]], %[[C8_1]] : index
// CHECK-NEXT:    %[[WARP_TX:.*]] = arith.addi %[[WX]], %[[LX]] : index
// CHECK-NEXT:    %[[C2_1:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[WROW:.*]] = arith.divsi %[[WARP]], %[[C2_1]] : index
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[WY:.*]] = arith.muli %[[WROW]], %[[C4]] : index
// CHECK-NEXT:    %[[C8_2:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %[[LY:.*]] = arith.divsi %[[LANE]], %[[C8_2]] : index
// CHECK-NEXT:    %[[WARP_TY:.*]] = arith.addi %[[WY]], %[[LY]] : index
//   the copy keeps the linear thread (coalesced), the compute reads the warp tile's threads
// CHECK:         %[[ROW:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %[[THREAD:.*]] = arith.addi %[[ROW]], %{{.*}} : index
// CHECK-NEXT:    memref.load %in[%[[THREAD]]] : memref<?xf32>
// CHECK:         "gpu.barrier"() : () -> ()
// CHECK-NEXT:    %[[FX:.*]] = arith.muli %[[WARP_TX]], %{{.*}} : index
// CHECK-NEXT:    %[[FY:.*]] = arith.muli %[[WARP_TY]], %{{.*}} : index
// CHECK:         %[[O:.*]] = arith.addi %[[FY]], %[[WARP_TX]] : index

// X4-LABEL: ^bb0(%in: memref<?xf32>, %out: memref<?xf32>):
//   4 x 8 warps: lane l of warp w is ((w % 4) * 4 + l % 4, (w / 4) * 8 + l / 4)
// X4:      %[[WARP:.*]] = arith.divsi %{{.*}}, %{{.*}} : index
// X4-NEXT: %[[C4:.*]] = arith.constant 4 : index
// X4-NEXT: %[[WCOL:.*]] = arith.remsi %[[WARP]], %[[C4]] : index
// X4:      %[[WARP_TX:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// X4-NEXT: %[[C4_1:.*]] = arith.constant 4 : index
// X4-NEXT: %[[WROW:.*]] = arith.divsi %[[WARP]], %[[C4_1]] : index
// X4-NEXT: %[[C8:.*]] = arith.constant 8 : index
// X4-NEXT: %{{.*}} = arith.muli %[[WROW]], %[[C8]] : index
// X4:      %[[WARP_TY:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// X4:      arith.muli %[[WARP_TX]], %{{.*}} : index
// X4-NEXT: arith.muli %[[WARP_TY]], %{{.*}} : index

// OFF-NOT: arith.remsi
// OFF: %[[FX:.*]] = arith.muli %tx, %c8 : index

// BAD: x must be one of 0, 1, 2, 4, 8, 16, 32; got 3
// BAD-NOT: Traceback

// -----

// A block of 8 x 2 threads has no 8 x 4 warp tile: left as it is.
builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>) -> (), kernel}> ({
    ^bb0(%out: memref<?xf32>):
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %f = arith.constant 1.0 : f32
      memref.store %f, %out[%tx] : memref<?xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "small", gpu.known_block_size = array<i32: 8, 2, 1>} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: ^bb0(%out: memref<?xf32>):
// CHECK-NEXT:    %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT:    %f = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    memref.store %f, %out[%tx] : memref<?xf32>

// -----

// `threadIdx.y * 16` shared by the copy's linear thread and the compute (after cse): the copy
// keeps it, the compute gets its own of the warp tile's thread.
builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, memref<?xf32>) -> (), kernel}> ({
    ^bb0(%in: memref<?xf32>, %out: memref<?xf32>):
      %tile = memref.alloca() : memref<256xf32, 3 : i32>
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %c16 = arith.constant 16 : index
      %row = arith.muli %ty, %c16 : index
      %thread = arith.addi %row, %tx : index
      %v = memref.load %in[%thread] : memref<?xf32>
      memref.store %v, %tile[%thread] : memref<256xf32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %a = memref.load %tile[%row] : memref<256xf32, 3 : i32>
      memref.store %a, %out[%row] : memref<?xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "shared_row", gpu.known_block_size = array<i32: 16, 16, 1>} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: ^bb0(%in: memref<?xf32>, %out: memref<?xf32>):
// CHECK:         %[[WARP_TY:warp_ty]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %[[C16W:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[TILE:.*]] = memref.alloca() : memref<256xf32, 3 : i32>
// CHECK-NEXT:    %[[OLD_TX:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT:    %[[OLD_TY:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
// CHECK-NEXT:    %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[ROW:.*]] = arith.muli %[[OLD_TY]], %[[C16]] : index
// CHECK-NEXT:    %[[WARP_ROW:.*]] = arith.muli %[[WARP_TY]], %[[C16W]] : index
// CHECK-NEXT:    %[[THREAD:.*]] = arith.addi %[[ROW]], %[[OLD_TX]] : index
// CHECK-NEXT:    memref.load %in[%[[THREAD]]] : memref<?xf32>
// CHECK:         "gpu.barrier"() : () -> ()
// CHECK-NEXT:    memref.load %[[TILE]][%[[WARP_ROW]]] : memref<256xf32, 3 : i32>
