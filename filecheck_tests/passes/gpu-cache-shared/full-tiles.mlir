// RUN: autogpu-opt %s -p 'gpu-cache-shared{assume_no_alias=true tile=4 full_tiles=true}' | filecheck %s

// full_tiles: the row-major register-tiled product of block-tiles.mlir (4x4 threads of 2x2,
// 8x4 tiles of A and B per 4 steps of k, general sizes). Each cooperative load is versioned
// on whether the block's tile is whole (every load of the group reads its whole box: the
// k-tile has 4 steps, and all replicas of every thread of the block are inside the problem):
// then a loop of constant trip count (32 elements by 16 threads) copies it without a
// per-element test; the ragged edge keeps the guarded copy. The loop over one k-tile is
// versioned the same way: a whole tile runs `for (k = 0; k < 4; k++)`, reading the shared
// tiles at k itself (the tile's start, subtracted by the reads, is gone).
// CHECK-LABEL: "gpu.func"
// CHECK:       %[[B_SH:.*]] = memref.alloca() : memref<32xf32, 3 : i32>
// CHECK-NEXT:  %[[A_SH:.*]] = memref.alloca() : memref<32xf32, 3 : i32>
// CHECK:       %[[ZERO:.*]] = arith.constant 0 : index
// CHECK:       %[[FOUR:.*]] = arith.constant 4 : index
// CHECK:       scf.for %[[KT:.*]] = %{{.*}} to %{{.*}} step %[[FOUR]] {
// CHECK:         %[[FIRST:.*]] = arith.index_cast %k_first : i32 to index
// CHECK-NEXT:    %[[END:.*]] = arith.index_cast %k_end : i32 to index
// CHECK-NEXT:    %[[LENGTH:.*]] = arith.subi %[[END]], %[[FIRST]] : index
// CHECK:         %[[THREAD:thread]] = arith.addi %{{.*}}, %tx : index
// CHECK:         scf.if %[[WHOLE_A:.*]] {
// CHECK-NEXT:      %[[ELEMENTS:.*]] = arith.constant 32 : index
// CHECK-NEXT:      %[[THREADS:.*]] = arith.constant 16 : index
// CHECK-NEXT:      scf.for %[[EF:.*]] = %[[ZERO]] to %[[ELEMENTS]] step %[[THREADS]] {
// CHECK-NEXT:        %[[E:.*]] = arith.addi %[[EF]], %[[THREAD]] : index
// CHECK-NOT:         scf.if
// CHECK:             %[[AV:.*]] = memref.load %A[%{{.*}}] : memref<?xf32>
// CHECK-NEXT:        memref.store %[[AV]], %[[A_SH]][%[[E]]]
// CHECK-NEXT:      }
// CHECK-NEXT:    } else {
// CHECK:           scf.for %[[E1:.*]] = %[[THREAD]] to %{{.*}} step %{{.*}} {
// CHECK:             scf.if
// CHECK:               memref.load %A
// CHECK:               memref.store %{{.*}}, %[[A_SH]][%[[E1]]]
// CHECK:         scf.if %{{.*}} {
// CHECK:           scf.for %{{.*}} = %[[ZERO]] to %{{.*}} step %{{.*}} {
// CHECK-NOT:         scf.if
// CHECK:             memref.load %B
// CHECK:         } else {
// CHECK:           scf.for
// CHECK:             scf.if
// CHECK:               memref.load %B
// CHECK:         "gpu.barrier"
// CHECK:         %[[WHOLE:whole_tile]] = arith.cmpi sle, %[[FOUR]], %[[LENGTH]] : index
// CHECK-NEXT:    scf.if %[[WHOLE]] {
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:      scf.for %[[K:k]] = %[[ZERO]] to %[[FOUR]] step %[[ONE]] {
// CHECK:             %[[A_AT:.*]] = arith.addi %[[K]], %{{.*}} : index
// CHECK-NEXT:        memref.load %[[A_SH]][%[[A_AT]]]
// CHECK:           }
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.for %{{.*}} = %k_first to %k_end step %{{.*}} : i32 {
// CHECK:         "gpu.barrier"

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, memref<?xf32>, memref<?xf32>, i32, i32, i32) -> (), kernel}> ({
    ^bb0(%A: memref<?xf32>, %B: memref<?xf32>, %C: memref<?xf32>, %m: i32, %n: i32, %p: i32):
      %j_ub = arith.index_cast %n : i32 to index
      %0 = arith.constant 2 : index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bdx = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %1 = arith.muli %bx, %bdx overflow<nsw> : index
      %2 = arith.muli %1, %0 overflow<nsw> : index
      %gid_x = arith.addi %2, %tx overflow<nsw> : index
      %i_ub = arith.index_cast %m : i32 to index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %bdy = "gpu.block_dim"() <{dimension = #gpu<dim y>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %3 = arith.muli %by, %bdy overflow<nsw> : index
      %4 = arith.muli %3, %0 overflow<nsw> : index
      %gid_y = arith.addi %4, %ty overflow<nsw> : index
      %gdy = "gpu.grid_dim"() <{dimension = #gpu<dim y>}> : () -> index
      %5 = arith.muli %gdy, %bdy overflow<nsw> : index
      %6 = arith.muli %5, %0 overflow<nsw> : index
      %j_idx = arith.addi %gid_x, %bdx overflow<nsw> : index
      %in_bounds = arith.cmpi slt, %j_idx, %j_ub : index
      scf.for %i_idx = %gid_y to %i_ub step %6 {
        %i_idx_1 = arith.addi %i_idx, %bdy overflow<nsw> : index
        %in_bounds_1 = arith.cmpi slt, %i_idx_1, %i_ub : index
        %full_tile = arith.andi %in_bounds_1, %in_bounds : i1
        scf.if %full_tile {
          %i = arith.index_cast %i_idx : index to i32
          %i_1 = arith.index_cast %i_idx_1 : index to i32
          %j = arith.index_cast %gid_x : index to i32
          %j_1 = arith.index_cast %j_idx : index to i32
          %cst = arith.constant 0.000000e+00 : f32
          %c0 = arith.constant 0 : i32
          %c1 = arith.constant 1 : i32
          %s = memref.alloca() : memref<f32>
          %s_1 = memref.alloca() : memref<f32>
          %s_2 = memref.alloca() : memref<f32>
          %s_3 = memref.alloca() : memref<f32>
          memref.store %cst, %s[] : memref<f32>
          memref.store %cst, %s_1[] : memref<f32>
          memref.store %cst, %s_2[] : memref<f32>
          memref.store %cst, %s_3[] : memref<f32>
          scf.for %k = %c0 to %p step %c1 : i32 {
            %s_4 = memref.load %s[] : memref<f32>
            %s_5 = memref.load %s_1[] : memref<f32>
            %s_6 = memref.load %s_2[] : memref<f32>
            %s_7 = memref.load %s_3[] : memref<f32>
            %7 = arith.muli %i, %p overflow<nsw> : i32
            %8 = arith.muli %i_1, %p overflow<nsw> : i32
            %9 = arith.addi %7, %k overflow<nsw> : i32
            %10 = arith.addi %8, %k overflow<nsw> : i32
            %11 = arith.index_cast %9 : i32 to index
            %12 = arith.index_cast %10 : i32 to index
            %13 = memref.load %A[%11] : memref<?xf32>
            %14 = memref.load %A[%12] : memref<?xf32>
            %15 = arith.muli %k, %n overflow<nsw> : i32
            %16 = arith.addi %15, %j overflow<nsw> : i32
            %17 = arith.addi %15, %j_1 overflow<nsw> : i32
            %18 = arith.index_cast %16 : i32 to index
            %19 = arith.index_cast %17 : i32 to index
            %20 = memref.load %B[%18] : memref<?xf32>
            %21 = memref.load %B[%19] : memref<?xf32>
            %22 = arith.mulf %13, %20 : f32
            %23 = arith.mulf %13, %21 : f32
            %24 = arith.mulf %14, %20 : f32
            %25 = arith.mulf %14, %21 : f32
            %26 = arith.addf %s_4, %22 : f32
            %27 = arith.addf %s_5, %23 : f32
            %28 = arith.addf %s_6, %24 : f32
            %29 = arith.addf %s_7, %25 : f32
            memref.store %26, %s[] : memref<f32>
            memref.store %27, %s_1[] : memref<f32>
            memref.store %28, %s_2[] : memref<f32>
            memref.store %29, %s_3[] : memref<f32>
          }
          %s_8 = memref.load %s[] : memref<f32>
          %s_9 = memref.load %s_1[] : memref<f32>
          %s_10 = memref.load %s_2[] : memref<f32>
          %s_11 = memref.load %s_3[] : memref<f32>
          %30 = arith.muli %i, %n overflow<nsw> : i32
          %31 = arith.muli %i_1, %n overflow<nsw> : i32
          %32 = arith.addi %30, %j overflow<nsw> : i32
          %33 = arith.addi %30, %j_1 overflow<nsw> : i32
          %34 = arith.addi %31, %j overflow<nsw> : i32
          %35 = arith.addi %31, %j_1 overflow<nsw> : i32
          %36 = arith.index_cast %32 : i32 to index
          %37 = arith.index_cast %33 : i32 to index
          %38 = arith.index_cast %34 : i32 to index
          %39 = arith.index_cast %35 : i32 to index
          memref.store %s_8, %C[%36] : memref<?xf32>
          memref.store %s_9, %C[%37] : memref<?xf32>
          memref.store %s_10, %C[%38] : memref<?xf32>
          memref.store %s_11, %C[%39] : memref<?xf32>
        } else {
          %in_bounds_2 = arith.cmpi slt, %gid_x, %j_ub : index
          scf.if %in_bounds_2 {
            %i_2 = arith.index_cast %i_idx : index to i32
            %j_2 = arith.index_cast %gid_x : index to i32
            %cst_1 = arith.constant 0.000000e+00 : f32
            %c0_1 = arith.constant 0 : i32
            %c1_1 = arith.constant 1 : i32
            %s_12 = memref.alloca() : memref<f32>
            memref.store %cst_1, %s_12[] : memref<f32>
            scf.for %k_1 = %c0_1 to %p step %c1_1 : i32 {
              %s_13 = memref.load %s_12[] : memref<f32>
              %40 = arith.muli %i_2, %p overflow<nsw> : i32
              %41 = arith.addi %40, %k_1 overflow<nsw> : i32
              %42 = arith.index_cast %41 : i32 to index
              %43 = memref.load %A[%42] : memref<?xf32>
              %44 = arith.muli %k_1, %n overflow<nsw> : i32
              %45 = arith.addi %44, %j_2 overflow<nsw> : i32
              %46 = arith.index_cast %45 : i32 to index
              %47 = memref.load %B[%46] : memref<?xf32>
              %48 = arith.mulf %43, %47 : f32
              %49 = arith.addf %s_13, %48 : f32
              memref.store %49, %s_12[] : memref<f32>
            }
            %s_14 = memref.load %s_12[] : memref<f32>
            %50 = arith.muli %i_2, %n overflow<nsw> : i32
            %51 = arith.addi %50, %j_2 overflow<nsw> : i32
            %52 = arith.index_cast %51 : i32 to index
            memref.store %s_14, %C[%52] : memref<?xf32>
          }
          scf.if %in_bounds {
            %i_3 = arith.index_cast %i_idx : index to i32
            %j_3 = arith.index_cast %j_idx : index to i32
            %cst_2 = arith.constant 0.000000e+00 : f32
            %c0_2 = arith.constant 0 : i32
            %c1_2 = arith.constant 1 : i32
            %s_15 = memref.alloca() : memref<f32>
            memref.store %cst_2, %s_15[] : memref<f32>
            scf.for %k_2 = %c0_2 to %p step %c1_2 : i32 {
              %s_16 = memref.load %s_15[] : memref<f32>
              %53 = arith.muli %i_3, %p overflow<nsw> : i32
              %54 = arith.addi %53, %k_2 overflow<nsw> : i32
              %55 = arith.index_cast %54 : i32 to index
              %56 = memref.load %A[%55] : memref<?xf32>
              %57 = arith.muli %k_2, %n overflow<nsw> : i32
              %58 = arith.addi %57, %j_3 overflow<nsw> : i32
              %59 = arith.index_cast %58 : i32 to index
              %60 = memref.load %B[%59] : memref<?xf32>
              %61 = arith.mulf %56, %60 : f32
              %62 = arith.addf %s_16, %61 : f32
              memref.store %62, %s_15[] : memref<f32>
            }
            %s_17 = memref.load %s_15[] : memref<f32>
            %63 = arith.muli %i_3, %n overflow<nsw> : i32
            %64 = arith.addi %63, %j_3 overflow<nsw> : i32
            %65 = arith.index_cast %64 : i32 to index
            memref.store %s_17, %C[%65] : memref<?xf32>
          }
          scf.if %in_bounds_1 {
            scf.if %in_bounds_2 {
              %i_4 = arith.index_cast %i_idx_1 : index to i32
              %j_4 = arith.index_cast %gid_x : index to i32
              %cst_3 = arith.constant 0.000000e+00 : f32
              %c0_3 = arith.constant 0 : i32
              %c1_3 = arith.constant 1 : i32
              %s_18 = memref.alloca() : memref<f32>
              memref.store %cst_3, %s_18[] : memref<f32>
              scf.for %k_3 = %c0_3 to %p step %c1_3 : i32 {
                %s_19 = memref.load %s_18[] : memref<f32>
                %66 = arith.muli %i_4, %p overflow<nsw> : i32
                %67 = arith.addi %66, %k_3 overflow<nsw> : i32
                %68 = arith.index_cast %67 : i32 to index
                %69 = memref.load %A[%68] : memref<?xf32>
                %70 = arith.muli %k_3, %n overflow<nsw> : i32
                %71 = arith.addi %70, %j_4 overflow<nsw> : i32
                %72 = arith.index_cast %71 : i32 to index
                %73 = memref.load %B[%72] : memref<?xf32>
                %74 = arith.mulf %69, %73 : f32
                %75 = arith.addf %s_19, %74 : f32
                memref.store %75, %s_18[] : memref<f32>
              }
              %s_20 = memref.load %s_18[] : memref<f32>
              %76 = arith.muli %i_4, %n overflow<nsw> : i32
              %77 = arith.addi %76, %j_4 overflow<nsw> : i32
              %78 = arith.index_cast %77 : i32 to index
              memref.store %s_20, %C[%78] : memref<?xf32>
            }
            scf.if %in_bounds {
              %i_5 = arith.index_cast %i_idx_1 : index to i32
              %j_5 = arith.index_cast %j_idx : index to i32
              %cst_4 = arith.constant 0.000000e+00 : f32
              %c0_4 = arith.constant 0 : i32
              %c1_4 = arith.constant 1 : i32
              %s_21 = memref.alloca() : memref<f32>
              memref.store %cst_4, %s_21[] : memref<f32>
              scf.for %k_4 = %c0_4 to %p step %c1_4 : i32 {
                %s_22 = memref.load %s_21[] : memref<f32>
                %79 = arith.muli %i_5, %p overflow<nsw> : i32
                %80 = arith.addi %79, %k_4 overflow<nsw> : i32
                %81 = arith.index_cast %80 : i32 to index
                %82 = memref.load %A[%81] : memref<?xf32>
                %83 = arith.muli %k_4, %n overflow<nsw> : i32
                %84 = arith.addi %83, %j_5 overflow<nsw> : i32
                %85 = arith.index_cast %84 : i32 to index
                %86 = memref.load %B[%85] : memref<?xf32>
                %87 = arith.mulf %82, %86 : f32
                %88 = arith.addf %s_22, %87 : f32
                memref.store %88, %s_21[] : memref<f32>
              }
              %s_23 = memref.load %s_21[] : memref<f32>
              %89 = arith.muli %i_5, %n overflow<nsw> : i32
              %90 = arith.addi %89, %j_5 overflow<nsw> : i32
              %91 = arith.index_cast %90 : i32 to index
              memref.store %s_23, %C[%91] : memref<?xf32>
            }
          }
        }
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "gemm_rm_kernel", gpu.known_block_size = array<i32: 4, 4, 1>, gpu.kernel, arg_attrs = [{agpu.name = "A", agpu.ctype = "float", agpu.const}, {agpu.name = "B", agpu.ctype = "float", agpu.const}, {agpu.name = "C", agpu.ctype = "float"}, {agpu.name = "m", agpu.ctype = "int"}, {agpu.name = "n", agpu.ctype = "int"}, {agpu.name = "p", agpu.ctype = "int"}]} : () -> ()
  }) : () -> ()
  func.func @gemm_rm(%A: memref<?xf32> {agpu.name = "A", agpu.ctype = "float", agpu.const}, %B: memref<?xf32> {agpu.name = "B", agpu.ctype = "float", agpu.const}, %C: memref<?xf32> {agpu.name = "C", agpu.ctype = "float"}, %m: i32 {agpu.name = "m", agpu.ctype = "int"}, %n: i32 {agpu.name = "n", agpu.ctype = "int"}, %p: i32 {agpu.name = "p", agpu.ctype = "int"}) {
    %0 = arith.constant 1 : index
    %1 = arith.index_cast %n : i32 to index
    %2 = arith.constant 8 : index
    %3 = arith.ceildivsi %1, %2 : index
    %grid_x = arith.maxsi %3, %0 : index
    %4 = arith.index_cast %m : i32 to index
    %5 = arith.ceildivsi %4, %2 : index
    %6 = arith.maxsi %5, %0 : index
    %7 = arith.constant 65535 : index
    %grid_y = arith.minsi %6, %7 : index
    %8 = arith.constant 4 : index
    "gpu.launch_func"(%grid_x, %grid_y, %0, %8, %8, %0, %A, %B, %C, %m, %n, %p) <{kernel = @kernels::@gemm_rm_kernel, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 6, 0>}> : (index, index, index, index, index, index, memref<?xf32>, memref<?xf32>, memref<?xf32>, i32, i32, i32) -> ()
    func.return
  }
}


