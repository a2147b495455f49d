// RUN: autogpu-opt %s --split-input-file -p 'gpu-cache-shared{assume_no_alias=true}' | filecheck %s

// The 5-point Jacobi stencil with 2D blocks of 32 x 4 threads: the four taps
// in[(i -/+ 1) * m + j], in[i * m + j -/+ 1] of a block share a (32 + 2) x (4 + 2) tile (the
// corners, which no tap reads, are not loaded). The grid-stride loop over i, whose trip count
// differs between the rows of threads, becomes a loop all threads run (over the block's first
// row) with a guard for each thread's row, so the barriers inside are reached by all.
// Input: autogpu-opt examples/stencil2d.c -p 'autogpu-vanilla{block_size=32 block_y=4}'
// (host function left out)

// CHECK-LABEL: "gpu.func"
// CHECK:         %[[SH:.*]] = memref.alloca() : memref<204xf64, 3 : i32>
// CHECK-DAG:     %[[TX:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}>
// CHECK-DAG:     %[[TY:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim y>}>
// CHECK:         scf.for %[[BASE:.*]] = %{{.*}} to %[[UB:.*]] step %{{.*}} {
// CHECK-NEXT:      %[[I:.*]] = arith.addi %[[BASE]], %[[TY]] : index
// CHECK-NEXT:      %[[ROW:.*]] = arith.cmpi slt, %[[I]], %[[UB]] : index
// 204 elements loaded by 128 threads: ty * 32 + tx, then + 128.
// CHECK:           %[[T:.*]] = arith.addi %{{.*}}, %[[TX]] : index
// CHECK:           scf.for %[[E:.*]] = %[[T]] to %{{.*}} step %{{.*}} {
// CHECK:               %[[V:.*]] = memref.load %in[%{{.*}}] : memref<?xf64>
// CHECK-NEXT:          memref.store %[[V]], %[[SH]][%[[E]]] : memref<204xf64, 3 : i32>
// CHECK:           "gpu.barrier"() : () -> ()
// CHECK-NEXT:      scf.if %[[ROW]] {
// CHECK-COUNT-4:     memref.load %[[SH]]
// CHECK:           "gpu.barrier"() : () -> ()
// CHECK-NEXT:    }
// CHECK-NOT:     memref.load %in

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (i32, i32, memref<?xf64>, memref<?xf64>) -> (), kernel}> ({
    ^bb0(%n: i32, %m: i32, %in: memref<?xf64>, %out: memref<?xf64>):
      %c1 = arith.constant 1 : i32
      %0 = arith.subi %n, %c1 : i32
      %1 = arith.constant 1 : index
      %2 = arith.subi %m, %c1 : i32
      %j_ub = arith.index_cast %2 : i32 to index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bdx = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %3 = arith.muli %bx, %bdx : index
      %gid_x = arith.addi %3, %tx : index
      %j_idx = arith.addi %gid_x, %1 : index
      %i_ub = arith.index_cast %0 : i32 to index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %bdy = "gpu.block_dim"() <{dimension = #gpu<dim y>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %4 = arith.muli %by, %bdy : index
      %gid_y = arith.addi %4, %ty : index
      %i_start = arith.addi %gid_y, %1 : index
      %gdy = "gpu.grid_dim"() <{dimension = #gpu<dim y>}> : () -> index
      %5 = arith.muli %gdy, %bdy : index
      scf.for %i_idx = %i_start to %i_ub step %5 {
        %i = arith.index_cast %i_idx : index to i32
        %in_bounds = arith.cmpi slt, %j_idx, %j_ub : index
        scf.if %in_bounds {
          %j = arith.index_cast %j_idx : index to i32
          %cst = arith.constant 2.500000e-01 : f64
          %6 = arith.subi %i, %c1 : i32
          %7 = arith.muli %6, %m : i32
          %8 = arith.addi %7, %j : i32
          %9 = arith.index_cast %8 : i32 to index
          %10 = memref.load %in[%9] : memref<?xf64>
          %11 = arith.addi %i, %c1 : i32
          %12 = arith.muli %11, %m : i32
          %13 = arith.addi %12, %j : i32
          %14 = arith.index_cast %13 : i32 to index
          %15 = memref.load %in[%14] : memref<?xf64>
          %16 = arith.addf %10, %15 : f64
          %17 = arith.muli %i, %m : i32
          %18 = arith.subi %j, %c1 : i32
          %19 = arith.addi %17, %18 : i32
          %20 = arith.index_cast %19 : i32 to index
          %21 = memref.load %in[%20] : memref<?xf64>
          %22 = arith.addf %16, %21 : f64
          %23 = arith.addi %j, %c1 : i32
          %24 = arith.addi %17, %23 : i32
          %25 = arith.index_cast %24 : i32 to index
          %26 = memref.load %in[%25] : memref<?xf64>
          %27 = arith.addf %22, %26 : f64
          %28 = arith.mulf %cst, %27 : f64
          %29 = arith.addi %17, %j : i32
          %30 = arith.index_cast %29 : i32 to index
          memref.store %28, %out[%30] : memref<?xf64>
        }
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "jacobi2d_kernel", gpu.known_block_size = array<i32: 32, 4, 1>, gpu.kernel, arg_attrs = [{agpu.name = "n", agpu.ctype = "int"}, {agpu.name = "m", agpu.ctype = "int"}, {agpu.name = "in", agpu.ctype = "double", agpu.const, agpu.extents = ["n", "m"]}, {agpu.name = "out", agpu.ctype = "double", agpu.extents = ["n", "m"]}]} : () -> ()
  }) : () -> ()
}

// -----

// Blocks of one row: each iteration of the grid-stride loop (one i per block) loads the three
// rows i - 1, i, i + 1 of 32 + 2 elements.
// Input: autogpu-opt examples/stencil2d.c -p 'autogpu-vanilla{block_size=32}' (host function left out)
// CHECK-LABEL:   "gpu.func"
// CHECK:          memref.alloca() : memref<102xf64, 3 : i32>
// CHECK-NOT:      "gpu.thread_id"() <{dimension = #gpu<dim y>}>
// CHECK:          scf.for
// CHECK:            "gpu.barrier"
// CHECK-COUNT-4:    memref.load %{{.*}} : memref<102xf64, 3 : i32>
// CHECK:            "gpu.barrier"
builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (i32, i32, memref<?xf64>, memref<?xf64>) -> (), kernel}> ({
    ^bb0(%n: i32, %m: i32, %in: memref<?xf64>, %out: memref<?xf64>):
      %c1 = arith.constant 1 : i32
      %0 = arith.subi %n, %c1 : i32
      %1 = arith.constant 1 : index
      %2 = arith.subi %m, %c1 : i32
      %j_ub = arith.index_cast %2 : i32 to index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bdx = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %3 = arith.muli %bx, %bdx : index
      %gid_x = arith.addi %3, %tx : index
      %j_idx = arith.addi %gid_x, %1 : index
      %i_ub = arith.index_cast %0 : i32 to index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %i_start = arith.addi %by, %1 : index
      %gdy = "gpu.grid_dim"() <{dimension = #gpu<dim y>}> : () -> index
      scf.for %i_idx = %i_start to %i_ub step %gdy {
        %i = arith.index_cast %i_idx : index to i32
        %in_bounds = arith.cmpi slt, %j_idx, %j_ub : index
        scf.if %in_bounds {
          %j = arith.index_cast %j_idx : index to i32
          %cst = arith.constant 2.500000e-01 : f64
          %4 = arith.subi %i, %c1 : i32
          %5 = arith.muli %4, %m : i32
          %6 = arith.addi %5, %j : i32
          %7 = arith.index_cast %6 : i32 to index
          %8 = memref.load %in[%7] : memref<?xf64>
          %9 = arith.addi %i, %c1 : i32
          %10 = arith.muli %9, %m : i32
          %11 = arith.addi %10, %j : i32
          %12 = arith.index_cast %11 : i32 to index
          %13 = memref.load %in[%12] : memref<?xf64>
          %14 = arith.addf %8, %13 : f64
          %15 = arith.muli %i, %m : i32
          %16 = arith.subi %j, %c1 : i32
          %17 = arith.addi %15, %16 : i32
          %18 = arith.index_cast %17 : i32 to index
          %19 = memref.load %in[%18] : memref<?xf64>
          %20 = arith.addf %14, %19 : f64
          %21 = arith.addi %j, %c1 : i32
          %22 = arith.addi %15, %21 : i32
          %23 = arith.index_cast %22 : i32 to index
          %24 = memref.load %in[%23] : memref<?xf64>
          %25 = arith.addf %20, %24 : f64
          %26 = arith.mulf %cst, %25 : f64
          %27 = arith.addi %15, %j : i32
          %28 = arith.index_cast %27 : i32 to index
          memref.store %26, %out[%28] : memref<?xf64>
        }
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "jacobi2d_kernel", gpu.known_block_size = array<i32: 32, 1, 1>, gpu.kernel, arg_attrs = [{agpu.name = "n", agpu.ctype = "int"}, {agpu.name = "m", agpu.ctype = "int"}, {agpu.name = "in", agpu.ctype = "double", agpu.const, agpu.extents = ["n", "m"]}, {agpu.name = "out", agpu.ctype = "double", agpu.extents = ["n", "m"]}]} : () -> ()
  }) : () -> ()
}
