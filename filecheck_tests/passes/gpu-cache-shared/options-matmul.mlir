// RUN: autogpu-opt %s -p 'gpu-cache-shared{assume_no_alias=true tile=8}' | filecheck %s --check-prefix=TILE
// RUN: autogpu-opt %s -p 'gpu-cache-shared{assume_no_alias=true thread_invariant=false}' | filecheck %s --check-prefix=NONE

// Options on examples/matmul.c.
// Input: autogpu-opt examples/matmul.c -p 'agpu-stage-accumulations{assume_no_alias=true},autogpu-vanilla{block_size=32}'
// (host function left out)

// tile=8: tiles of 8 iterations of k (the block has 32 threads: threads 0..7 load them).
// TILE-LABEL: "gpu.func"
// TILE:      %[[SH:.*]] = memref.alloca() : memref<8xf32, 3 : i32>
// TILE:      %[[EIGHT:.*]] = arith.constant 8 : index
// TILE:      scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[EIGHT]] {
// TILE:        arith.cmpi slt, %{{.*}}, %[[EIGHT]] : index
// TILE:        memref.store %{{.*}}, %[[SH]]

// thread_invariant=false: matmul's C is not cached (and nothing else is).
// NONE-LABEL: "gpu.func"
// NONE-NOT:  memref.alloca() : memref<{{.*}}, 3 : i32>
// NONE-NOT:  "gpu.barrier"

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, memref<?xf32>, memref<?xf32>, i32, i32, i32) -> (), kernel}> ({
    ^bb0(%A: memref<?xf32>, %B: memref<?xf32>, %C: memref<?xf32>, %m: i32, %n: i32, %p: i32):
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
          %c0 = arith.constant 0 : i32
          %c1 = arith.constant 1 : i32
          %A_acc = memref.alloca() : memref<f32>
          %1 = arith.cmpi slt, %c0, %p : i32
          scf.if %1 {
            %2 = arith.muli %j, %m : i32
            %3 = arith.addi %i, %2 : i32
            %4 = arith.index_cast %3 : i32 to index
            %5 = memref.load %A[%4] : memref<?xf32>
            memref.store %5, %A_acc[] : memref<f32>
            scf.for %k = %c0 to %p step %c1 : i32 {
              %6 = memref.load %A_acc[] : memref<f32>
              %7 = arith.muli %k, %m : i32
              %8 = arith.addi %i, %7 : i32
              %9 = arith.index_cast %8 : i32 to index
              %10 = memref.load %B[%9] : memref<?xf32>
              %11 = arith.muli %j, %p : i32
              %12 = arith.addi %k, %11 : i32
              %13 = arith.index_cast %12 : i32 to index
              %14 = memref.load %C[%13] : memref<?xf32>
              %15 = arith.mulf %10, %14 : f32
              %16 = arith.addf %6, %15 : f32
              memref.store %16, %A_acc[] : memref<f32>
            }
            %17 = memref.load %A_acc[] : memref<f32>
            memref.store %17, %A[%4] : memref<?xf32>
          }
        }
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "matmul_kernel", gpu.known_block_size = array<i32: 32, 1, 1>, gpu.kernel, arg_attrs = [{agpu.name = "A", agpu.ctype = "float"}, {agpu.name = "B", agpu.ctype = "float", agpu.const}, {agpu.name = "C", agpu.ctype = "float", agpu.const}, {agpu.name = "m", agpu.ctype = "int"}, {agpu.name = "n", agpu.ctype = "int"}, {agpu.name = "p", agpu.ctype = "int"}]} : () -> ()
  }) : () -> ()
}
