// RUN: autogpu-opt %s -p 'gpu-cache-shared{assume_no_alias=true tile=4 full_tiles=true copy_width=4 pad=4}' | filecheck %s
// RUN: autogpu-opt %s -p 'gpu-cache-shared{assume_no_alias=true tile=4 full_tiles=true}' | filecheck %s --check-prefix=PLAIN

// Blocked register tiles (agpu-unroll-parallel{x=4 y=4 distribution=blocked}, 4x4 threads) of
// matmul.c, A[i + j*m] += B[i + k*m] * C[k + j*p]: thread (tx, ty) owns i = 16bx + 4tx + u,
// j = 16by + 4ty + v. Each tile is laid out for its readers: the replicas' dimension fastest,
// then the threads', then k. B (i fastest in the array too) is stored as loaded, and a whole
// tile is copied in chunks of 4 consecutive elements per thread (copy_width=4: neighbouring
// stores at a multiple of 4, one float4 for gpu-vectorize). C (k fastest in the array) is
// stored transposed, k-major, its rows padded from 16 to 20 (pad=4) against the bank
// conflicts of the copy's stores, which walk k; its copy stays element-wise.
// Input: autogpu-opt examples/matmul.c -p 'agpu-stage-accumulations{assume_no_alias=true},
//   agpu-unroll-parallel{x=4 y=4 distribution=blocked},autogpu-vanilla{block_size=4 block_y=4}'

// CHECK-LABEL: "gpu.func"
// CHECK:      %[[C_SH:.*]] = memref.alloca() : memref<76xf32, 3 : i32>
// CHECK-NEXT: %[[B_SH:.*]] = memref.alloca() : memref<64xf32, 3 : i32>
// CHECK:      %[[ONE:.*]] = arith.constant 1 : index
// CHECK:      %[[FOUR:.*]] = arith.constant 4 : index
// CHECK:      scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[FOUR]] {
// The whole B tile: 16 threads, 64 elements, one chunk each (row u of thread c % 4).
// CHECK:        scf.if %{{.*}} {
// CHECK-NEXT:     %[[CR:.*]] = arith.remsi %[[THREAD:.*]], %[[ONE]] : index
// CHECK-NEXT:     %[[FIRST:.*]] = arith.muli %[[CR]], %[[FOUR]] : index
// CHECK:          %[[V0:.*]] = memref.load %B[%{{.*}}] : memref<?xf32>
// CHECK:          %[[SLOT:.*]] = arith.addi %{{.*}}, %[[FIRST]] : index
// CHECK-NEXT:     memref.store %[[V0]], %[[B_SH]][%[[SLOT]]]
// CHECK-NEXT:     %[[Q1:.*]] = arith.addi %[[FIRST]], %[[ONE]] : index
// CHECK:          %[[V1:.*]] = memref.load %B[%{{.*}}] : memref<?xf32>
// CHECK-NEXT:     %[[SLOT1:.*]] = arith.addi %{{.*}}, %[[Q1]] : index
// CHECK-NEXT:     memref.store %[[V1]], %[[B_SH]][%[[SLOT1]]]
// CHECK:        } else {
// CHECK:          scf.for %[[E:.*]] = %[[THREAD]] to %{{.*}} step %{{.*}} {
// CHECK:            memref.store %{{.*}}, %[[B_SH]][%[[E]]]
// The whole C tile, element by element (k fastest, coalesced), stored k-major in rows of 20.
// CHECK:          scf.for %[[EF:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:       %[[EC:.*]] = arith.addi %[[EF]], %[[THREAD]] : index
// CHECK-NEXT:       %[[K:.*]] = arith.remsi %[[EC]], %[[FOUR]] : index
// CHECK:            %[[CV:.*]] = memref.load %C[%{{.*}}] : memref<?xf32>
// CHECK-NEXT:       %[[ROW:.*]] = arith.constant 20 : index
// CHECK-NEXT:       %[[KR:.*]] = arith.muli %[[K]], %[[ROW]] : index
// CHECK:            memref.store %[[CV]], %[[C_SH]][%{{.*}}]
// CHECK:        "gpu.barrier"
// The fragments: 4 neighbours of B_sh from k * 16 + tx * 4, of C_sh from k * 20 + ty * 4.
// CHECK:        scf.for %[[KK:.*]] = %{{.*}} to %[[FOUR]] step %[[ONE]] {
// CHECK:          %[[KB:.*]] = arith.muli %[[KK]], %{{.*}} : index
// CHECK-NEXT:     %[[TB:.*]] = arith.muli %tx, %[[FOUR]] : index
// CHECK-NEXT:     %[[FB:.*]] = arith.addi %[[KB]], %[[TB]] : index
// CHECK-NEXT:     memref.load %[[B_SH]][%[[FB]]]
// CHECK-NEXT:     %[[FB1:.*]] = arith.addi %[[FB]], %[[ONE]] : index
// CHECK-NEXT:     memref.load %[[B_SH]][%[[FB1]]]
// CHECK:          %[[ROWC:.*]] = arith.constant 20 : index
// CHECK-NEXT:     %[[KC:.*]] = arith.muli %[[KK]], %[[ROWC]] : index
// CHECK-NEXT:     %[[FC:.*]] = arith.addi %[[KC]], %{{.*}} : index
// CHECK-NEXT:     memref.load %[[C_SH]][%[[FC]]]
// CHECK-NEXT:     %[[FC1:.*]] = arith.addi %[[FC]], %[[ONE]] : index
// CHECK-NEXT:     memref.load %[[C_SH]][%[[FC1]]]

// Without copy_width and pad: the same layouts, C's rows of 16, every copy element-wise.
// PLAIN-LABEL: "gpu.func"
// PLAIN:       %[[C_SH:.*]] = memref.alloca() : memref<64xf32, 3 : i32>
// PLAIN-NEXT:  %[[B_SH:.*]] = memref.alloca() : memref<64xf32, 3 : i32>
// PLAIN-NOT:   arith.constant 20 : index
// PLAIN:       memref.store %{{.*}}, %[[B_SH]][%[[E:e.*]]]
// PLAIN:       memref.store %{{.*}}, %[[C_SH]][%{{.*}}]

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, memref<?xf32>, memref<?xf32>, i32, i32, i32) -> (), kernel}> ({
    ^bb0(%A: memref<?xf32>, %B: memref<?xf32>, %C: memref<?xf32>, %m: i32, %n: i32, %p: i32):
      %i_ub = arith.index_cast %m : i32 to index
      %0 = arith.constant 1 : index
      %1 = arith.constant 4 : index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bdx = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %2 = arith.muli %bx, %bdx overflow<nsw> : index
      %3 = arith.muli %2, %1 overflow<nsw> : index
      %4 = arith.muli %tx, %1 overflow<nsw> : index
      %gid_x = arith.addi %3, %4 overflow<nsw> : index
      %j_ub = arith.index_cast %n : i32 to index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %bdy = "gpu.block_dim"() <{dimension = #gpu<dim y>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %5 = arith.muli %by, %bdy overflow<nsw> : index
      %6 = arith.muli %5, %1 overflow<nsw> : index
      %7 = arith.muli %ty, %1 overflow<nsw> : index
      %gid_y = arith.addi %6, %7 overflow<nsw> : index
      %gdy = "gpu.grid_dim"() <{dimension = #gpu<dim y>}> : () -> index
      %8 = arith.muli %gdy, %bdy overflow<nsw> : index
      %9 = arith.muli %8, %1 overflow<nsw> : index
      %i_idx = arith.addi %gid_x, %0 overflow<nsw> : index
      %10 = arith.constant 2 : index
      %i_idx_1 = arith.addi %gid_x, %10 overflow<nsw> : index
      %11 = arith.constant 3 : index
      %i_idx_2 = arith.addi %gid_x, %11 overflow<nsw> : index
      %in_bounds = arith.cmpi slt, %i_idx_2, %i_ub : index
      scf.for %j_idx = %gid_y to %j_ub step %9 {
        %j_idx_1 = arith.addi %j_idx, %0 overflow<nsw> : index
        %j_idx_2 = arith.addi %j_idx, %10 overflow<nsw> : index
        %j_idx_3 = arith.addi %j_idx, %11 overflow<nsw> : index
        %in_bounds_1 = arith.cmpi slt, %j_idx_3, %j_ub : index
        %full_tile = arith.andi %in_bounds_1, %in_bounds : i1
        scf.if %full_tile {
          %j = arith.index_cast %j_idx : index to i32
          %j_1 = arith.index_cast %j_idx_1 : index to i32
          %j_2 = arith.index_cast %j_idx_2 : index to i32
          %j_3 = arith.index_cast %j_idx_3 : index to i32
          %i = arith.index_cast %gid_x : index to i32
          %i_1 = arith.index_cast %i_idx : index to i32
          %i_2 = arith.index_cast %i_idx_1 : index to i32
          %i_3 = arith.index_cast %i_idx_2 : index to i32
          %c0 = arith.constant 0 : i32
          %c1 = arith.constant 1 : i32
          %A_acc = memref.alloca() : memref<f32>
          %A_acc_1 = memref.alloca() : memref<f32>
          %A_acc_2 = memref.alloca() : memref<f32>
          %A_acc_3 = memref.alloca() : memref<f32>
          %A_acc_4 = memref.alloca() : memref<f32>
          %A_acc_5 = memref.alloca() : memref<f32>
          %A_acc_6 = memref.alloca() : memref<f32>
          %A_acc_7 = memref.alloca() : memref<f32>
          %A_acc_8 = memref.alloca() : memref<f32>
          %A_acc_9 = memref.alloca() : memref<f32>
          %A_acc_10 = memref.alloca() : memref<f32>
          %A_acc_11 = memref.alloca() : memref<f32>
          %A_acc_12 = memref.alloca() : memref<f32>
          %A_acc_13 = memref.alloca() : memref<f32>
          %A_acc_14 = memref.alloca() : memref<f32>
          %A_acc_15 = memref.alloca() : memref<f32>
          %12 = arith.cmpi slt, %c0, %p : i32
          scf.if %12 {
            %13 = arith.muli %j, %m overflow<nsw> : i32
            %14 = arith.muli %j_1, %m overflow<nsw> : i32
            %15 = arith.muli %j_2, %m overflow<nsw> : i32
            %16 = arith.muli %j_3, %m overflow<nsw> : i32
            %17 = arith.addi %i, %13 overflow<nsw> : i32
            %18 = arith.addi %i_1, %13 overflow<nsw> : i32
            %19 = arith.addi %i_2, %13 overflow<nsw> : i32
            %20 = arith.addi %i_3, %13 overflow<nsw> : i32
            %21 = arith.addi %i, %14 overflow<nsw> : i32
            %22 = arith.addi %i_1, %14 overflow<nsw> : i32
            %23 = arith.addi %i_2, %14 overflow<nsw> : i32
            %24 = arith.addi %i_3, %14 overflow<nsw> : i32
            %25 = arith.addi %i, %15 overflow<nsw> : i32
            %26 = arith.addi %i_1, %15 overflow<nsw> : i32
            %27 = arith.addi %i_2, %15 overflow<nsw> : i32
            %28 = arith.addi %i_3, %15 overflow<nsw> : i32
            %29 = arith.addi %i, %16 overflow<nsw> : i32
            %30 = arith.addi %i_1, %16 overflow<nsw> : i32
            %31 = arith.addi %i_2, %16 overflow<nsw> : i32
            %32 = arith.addi %i_3, %16 overflow<nsw> : i32
            %33 = arith.index_cast %17 : i32 to index
            %34 = arith.index_cast %18 : i32 to index
            %35 = arith.index_cast %19 : i32 to index
            %36 = arith.index_cast %20 : i32 to index
            %37 = arith.index_cast %21 : i32 to index
            %38 = arith.index_cast %22 : i32 to index
            %39 = arith.index_cast %23 : i32 to index
            %40 = arith.index_cast %24 : i32 to index
            %41 = arith.index_cast %25 : i32 to index
            %42 = arith.index_cast %26 : i32 to index
            %43 = arith.index_cast %27 : i32 to index
            %44 = arith.index_cast %28 : i32 to index
            %45 = arith.index_cast %29 : i32 to index
            %46 = arith.index_cast %30 : i32 to index
            %47 = arith.index_cast %31 : i32 to index
            %48 = arith.index_cast %32 : i32 to index
            %49 = memref.load %A[%33] : memref<?xf32>
            %50 = memref.load %A[%34] : memref<?xf32>
            %51 = memref.load %A[%35] : memref<?xf32>
            %52 = memref.load %A[%36] : memref<?xf32>
            %53 = memref.load %A[%37] : memref<?xf32>
            %54 = memref.load %A[%38] : memref<?xf32>
            %55 = memref.load %A[%39] : memref<?xf32>
            %56 = memref.load %A[%40] : memref<?xf32>
            %57 = memref.load %A[%41] : memref<?xf32>
            %58 = memref.load %A[%42] : memref<?xf32>
            %59 = memref.load %A[%43] : memref<?xf32>
            %60 = memref.load %A[%44] : memref<?xf32>
            %61 = memref.load %A[%45] : memref<?xf32>
            %62 = memref.load %A[%46] : memref<?xf32>
            %63 = memref.load %A[%47] : memref<?xf32>
            %64 = memref.load %A[%48] : memref<?xf32>
            memref.store %49, %A_acc[] : memref<f32>
            memref.store %50, %A_acc_1[] : memref<f32>
            memref.store %51, %A_acc_2[] : memref<f32>
            memref.store %52, %A_acc_3[] : memref<f32>
            memref.store %53, %A_acc_4[] : memref<f32>
            memref.store %54, %A_acc_5[] : memref<f32>
            memref.store %55, %A_acc_6[] : memref<f32>
            memref.store %56, %A_acc_7[] : memref<f32>
            memref.store %57, %A_acc_8[] : memref<f32>
            memref.store %58, %A_acc_9[] : memref<f32>
            memref.store %59, %A_acc_10[] : memref<f32>
            memref.store %60, %A_acc_11[] : memref<f32>
            memref.store %61, %A_acc_12[] : memref<f32>
            memref.store %62, %A_acc_13[] : memref<f32>
            memref.store %63, %A_acc_14[] : memref<f32>
            memref.store %64, %A_acc_15[] : memref<f32>
            scf.for %k = %c0 to %p step %c1 : i32 {
              %65 = memref.load %A_acc[] : memref<f32>
              %66 = memref.load %A_acc_1[] : memref<f32>
              %67 = memref.load %A_acc_2[] : memref<f32>
              %68 = memref.load %A_acc_3[] : memref<f32>
              %69 = memref.load %A_acc_4[] : memref<f32>
              %70 = memref.load %A_acc_5[] : memref<f32>
              %71 = memref.load %A_acc_6[] : memref<f32>
              %72 = memref.load %A_acc_7[] : memref<f32>
              %73 = memref.load %A_acc_8[] : memref<f32>
              %74 = memref.load %A_acc_9[] : memref<f32>
              %75 = memref.load %A_acc_10[] : memref<f32>
              %76 = memref.load %A_acc_11[] : memref<f32>
              %77 = memref.load %A_acc_12[] : memref<f32>
              %78 = memref.load %A_acc_13[] : memref<f32>
              %79 = memref.load %A_acc_14[] : memref<f32>
              %80 = memref.load %A_acc_15[] : memref<f32>
              %81 = arith.muli %k, %m overflow<nsw> : i32
              %82 = arith.addi %i, %81 overflow<nsw> : i32
              %83 = arith.addi %i_1, %81 overflow<nsw> : i32
              %84 = arith.addi %i_2, %81 overflow<nsw> : i32
              %85 = arith.addi %i_3, %81 overflow<nsw> : i32
              %86 = arith.index_cast %82 : i32 to index
              %87 = arith.index_cast %83 : i32 to index
              %88 = arith.index_cast %84 : i32 to index
              %89 = arith.index_cast %85 : i32 to index
              %90 = memref.load %B[%86] : memref<?xf32>
              %91 = memref.load %B[%87] : memref<?xf32>
              %92 = memref.load %B[%88] : memref<?xf32>
              %93 = memref.load %B[%89] : memref<?xf32>
              %94 = arith.muli %j, %p overflow<nsw> : i32
              %95 = arith.muli %j_1, %p overflow<nsw> : i32
              %96 = arith.muli %j_2, %p overflow<nsw> : i32
              %97 = arith.muli %j_3, %p overflow<nsw> : i32
              %98 = arith.addi %k, %94 overflow<nsw> : i32
              %99 = arith.addi %k, %95 overflow<nsw> : i32
              %100 = arith.addi %k, %96 overflow<nsw> : i32
              %101 = arith.addi %k, %97 overflow<nsw> : i32
              %102 = arith.index_cast %98 : i32 to index
              %103 = arith.index_cast %99 : i32 to index
              %104 = arith.index_cast %100 : i32 to index
              %105 = arith.index_cast %101 : i32 to index
              %106 = memref.load %C[%102] : memref<?xf32>
              %107 = memref.load %C[%103] : memref<?xf32>
              %108 = memref.load %C[%104] : memref<?xf32>
              %109 = memref.load %C[%105] : memref<?xf32>
              %110 = arith.mulf %90, %106 : f32
              %111 = arith.mulf %91, %106 : f32
              %112 = arith.mulf %92, %106 : f32
              %113 = arith.mulf %93, %106 : f32
              %114 = arith.mulf %90, %107 : f32
              %115 = arith.mulf %91, %107 : f32
              %116 = arith.mulf %92, %107 : f32
              %117 = arith.mulf %93, %107 : f32
              %118 = arith.mulf %90, %108 : f32
              %119 = arith.mulf %91, %108 : f32
              %120 = arith.mulf %92, %108 : f32
              %121 = arith.mulf %93, %108 : f32
              %122 = arith.mulf %90, %109 : f32
              %123 = arith.mulf %91, %109 : f32
              %124 = arith.mulf %92, %109 : f32
              %125 = arith.mulf %93, %109 : f32
              %126 = arith.addf %65, %110 : f32
              %127 = arith.addf %66, %111 : f32
              %128 = arith.addf %67, %112 : f32
              %129 = arith.addf %68, %113 : f32
              %130 = arith.addf %69, %114 : f32
              %131 = arith.addf %70, %115 : f32
              %132 = arith.addf %71, %116 : f32
              %133 = arith.addf %72, %117 : f32
              %134 = arith.addf %73, %118 : f32
              %135 = arith.addf %74, %119 : f32
              %136 = arith.addf %75, %120 : f32
              %137 = arith.addf %76, %121 : f32
              %138 = arith.addf %77, %122 : f32
              %139 = arith.addf %78, %123 : f32
              %140 = arith.addf %79, %124 : f32
              %141 = arith.addf %80, %125 : f32
              memref.store %126, %A_acc[] : memref<f32>
              memref.store %127, %A_acc_1[] : memref<f32>
              memref.store %128, %A_acc_2[] : memref<f32>
              memref.store %129, %A_acc_3[] : memref<f32>
              memref.store %130, %A_acc_4[] : memref<f32>
              memref.store %131, %A_acc_5[] : memref<f32>
              memref.store %132, %A_acc_6[] : memref<f32>
              memref.store %133, %A_acc_7[] : memref<f32>
              memref.store %134, %A_acc_8[] : memref<f32>
              memref.store %135, %A_acc_9[] : memref<f32>
              memref.store %136, %A_acc_10[] : memref<f32>
              memref.store %137, %A_acc_11[] : memref<f32>
              memref.store %138, %A_acc_12[] : memref<f32>
              memref.store %139, %A_acc_13[] : memref<f32>
              memref.store %140, %A_acc_14[] : memref<f32>
              memref.store %141, %A_acc_15[] : memref<f32>
            }
            %142 = memref.load %A_acc[] : memref<f32>
            %143 = memref.load %A_acc_1[] : memref<f32>
            %144 = memref.load %A_acc_2[] : memref<f32>
            %145 = memref.load %A_acc_3[] : memref<f32>
            %146 = memref.load %A_acc_4[] : memref<f32>
            %147 = memref.load %A_acc_5[] : memref<f32>
            %148 = memref.load %A_acc_6[] : memref<f32>
            %149 = memref.load %A_acc_7[] : memref<f32>
            %150 = memref.load %A_acc_8[] : memref<f32>
            %151 = memref.load %A_acc_9[] : memref<f32>
            %152 = memref.load %A_acc_10[] : memref<f32>
            %153 = memref.load %A_acc_11[] : memref<f32>
            %154 = memref.load %A_acc_12[] : memref<f32>
            %155 = memref.load %A_acc_13[] : memref<f32>
            %156 = memref.load %A_acc_14[] : memref<f32>
            %157 = memref.load %A_acc_15[] : memref<f32>
            memref.store %142, %A[%33] : memref<?xf32>
            memref.store %143, %A[%34] : memref<?xf32>
            memref.store %144, %A[%35] : memref<?xf32>
            memref.store %145, %A[%36] : memref<?xf32>
            memref.store %146, %A[%37] : memref<?xf32>
            memref.store %147, %A[%38] : memref<?xf32>
            memref.store %148, %A[%39] : memref<?xf32>
            memref.store %149, %A[%40] : memref<?xf32>
            memref.store %150, %A[%41] : memref<?xf32>
            memref.store %151, %A[%42] : memref<?xf32>
            memref.store %152, %A[%43] : memref<?xf32>
            memref.store %153, %A[%44] : memref<?xf32>
            memref.store %154, %A[%45] : memref<?xf32>
            memref.store %155, %A[%46] : memref<?xf32>
            memref.store %156, %A[%47] : memref<?xf32>
            memref.store %157, %A[%48] : memref<?xf32>
          }
        } else {
          %in_bounds_2 = arith.cmpi slt, %gid_x, %i_ub : index
          scf.if %in_bounds_2 {
            %j_4 = arith.index_cast %j_idx : index to i32
            %i_4 = arith.index_cast %gid_x : index to i32
            %c0_1 = arith.constant 0 : i32
            %c1_1 = arith.constant 1 : i32
            %A_acc_16 = memref.alloca() : memref<f32>
            %158 = arith.cmpi slt, %c0_1, %p : i32
            scf.if %158 {
              %159 = arith.muli %j_4, %m overflow<nsw> : i32
              %160 = arith.addi %i_4, %159 overflow<nsw> : i32
              %161 = arith.index_cast %160 : i32 to index
              %162 = memref.load %A[%161] : memref<?xf32>
              memref.store %162, %A_acc_16[] : memref<f32>
              scf.for %k_1 = %c0_1 to %p step %c1_1 : i32 {
                %163 = memref.load %A_acc_16[] : memref<f32>
                %164 = arith.muli %k_1, %m overflow<nsw> : i32
                %165 = arith.addi %i_4, %164 overflow<nsw> : i32
                %166 = arith.index_cast %165 : i32 to index
                %167 = memref.load %B[%166] : memref<?xf32>
                %168 = arith.muli %j_4, %p overflow<nsw> : i32
                %169 = arith.addi %k_1, %168 overflow<nsw> : i32
                %170 = arith.index_cast %169 : i32 to index
                %171 = memref.load %C[%170] : memref<?xf32>
                %172 = arith.mulf %167, %171 : f32
                %173 = arith.addf %163, %172 : f32
                memref.store %173, %A_acc_16[] : memref<f32>
              }
              %174 = memref.load %A_acc_16[] : memref<f32>
              memref.store %174, %A[%161] : memref<?xf32>
            }
          }
          %in_bounds_3 = arith.cmpi slt, %i_idx, %i_ub : index
          scf.if %in_bounds_3 {
            %j_5 = arith.index_cast %j_idx : index to i32
            %i_5 = arith.index_cast %i_idx : index to i32
            %c0_2 = arith.constant 0 : i32
            %c1_2 = arith.constant 1 : i32
            %A_acc_17 = memref.alloca() : memref<f32>
            %175 = arith.cmpi slt, %c0_2, %p : i32
            scf.if %175 {
              %176 = arith.muli %j_5, %m overflow<nsw> : i32
              %177 = arith.addi %i_5, %176 overflow<nsw> : i32
              %178 = arith.index_cast %177 : i32 to index
              %179 = memref.load %A[%178] : memref<?xf32>
              memref.store %179, %A_acc_17[] : memref<f32>
              scf.for %k_2 = %c0_2 to %p step %c1_2 : i32 {
                %180 = memref.load %A_acc_17[] : memref<f32>
                %181 = arith.muli %k_2, %m overflow<nsw> : i32
                %182 = arith.addi %i_5, %181 overflow<nsw> : i32
                %183 = arith.index_cast %182 : i32 to index
                %184 = memref.load %B[%183] : memref<?xf32>
                %185 = arith.muli %j_5, %p overflow<nsw> : i32
                %186 = arith.addi %k_2, %185 overflow<nsw> : i32
                %187 = arith.index_cast %186 : i32 to index
                %188 = memref.load %C[%187] : memref<?xf32>
                %189 = arith.mulf %184, %188 : f32
                %190 = arith.addf %180, %189 : f32
                memref.store %190, %A_acc_17[] : memref<f32>
              }
              %191 = memref.load %A_acc_17[] : memref<f32>
              memref.store %191, %A[%178] : memref<?xf32>
            }
          }
          %in_bounds_4 = arith.cmpi slt, %i_idx_1, %i_ub : index
          scf.if %in_bounds_4 {
            %j_6 = arith.index_cast %j_idx : index to i32
            %i_6 = arith.index_cast %i_idx_1 : index to i32
            %c0_3 = arith.constant 0 : i32
            %c1_3 = arith.constant 1 : i32
            %A_acc_18 = memref.alloca() : memref<f32>
            %192 = arith.cmpi slt, %c0_3, %p : i32
            scf.if %192 {
              %193 = arith.muli %j_6, %m overflow<nsw> : i32
              %194 = arith.addi %i_6, %193 overflow<nsw> : i32
              %195 = arith.index_cast %194 : i32 to index
              %196 = memref.load %A[%195] : memref<?xf32>
              memref.store %196, %A_acc_18[] : memref<f32>
              scf.for %k_3 = %c0_3 to %p step %c1_3 : i32 {
                %197 = memref.load %A_acc_18[] : memref<f32>
                %198 = arith.muli %k_3, %m overflow<nsw> : i32
                %199 = arith.addi %i_6, %198 overflow<nsw> : i32
                %200 = arith.index_cast %199 : i32 to index
                %201 = memref.load %B[%200] : memref<?xf32>
                %202 = arith.muli %j_6, %p overflow<nsw> : i32
                %203 = arith.addi %k_3, %202 overflow<nsw> : i32
                %204 = arith.index_cast %203 : i32 to index
                %205 = memref.load %C[%204] : memref<?xf32>
                %206 = arith.mulf %201, %205 : f32
                %207 = arith.addf %197, %206 : f32
                memref.store %207, %A_acc_18[] : memref<f32>
              }
              %208 = memref.load %A_acc_18[] : memref<f32>
              memref.store %208, %A[%195] : memref<?xf32>
            }
          }
          scf.if %in_bounds {
            %j_7 = arith.index_cast %j_idx : index to i32
            %i_7 = arith.index_cast %i_idx_2 : index to i32
            %c0_4 = arith.constant 0 : i32
            %c1_4 = arith.constant 1 : i32
            %A_acc_19 = memref.alloca() : memref<f32>
            %209 = arith.cmpi slt, %c0_4, %p : i32
            scf.if %209 {
              %210 = arith.muli %j_7, %m overflow<nsw> : i32
              %211 = arith.addi %i_7, %210 overflow<nsw> : i32
              %212 = arith.index_cast %211 : i32 to index
              %213 = memref.load %A[%212] : memref<?xf32>
              memref.store %213, %A_acc_19[] : memref<f32>
              scf.for %k_4 = %c0_4 to %p step %c1_4 : i32 {
                %214 = memref.load %A_acc_19[] : memref<f32>
                %215 = arith.muli %k_4, %m overflow<nsw> : i32
                %216 = arith.addi %i_7, %215 overflow<nsw> : i32
                %217 = arith.index_cast %216 : i32 to index
                %218 = memref.load %B[%217] : memref<?xf32>
                %219 = arith.muli %j_7, %p overflow<nsw> : i32
                %220 = arith.addi %k_4, %219 overflow<nsw> : i32
                %221 = arith.index_cast %220 : i32 to index
                %222 = memref.load %C[%221] : memref<?xf32>
                %223 = arith.mulf %218, %222 : f32
                %224 = arith.addf %214, %223 : f32
                memref.store %224, %A_acc_19[] : memref<f32>
              }
              %225 = memref.load %A_acc_19[] : memref<f32>
              memref.store %225, %A[%212] : memref<?xf32>
            }
          }
          %in_bounds_5 = arith.cmpi slt, %j_idx_1, %j_ub : index
          scf.if %in_bounds_5 {
            scf.if %in_bounds_2 {
              %j_8 = arith.index_cast %j_idx_1 : index to i32
              %i_8 = arith.index_cast %gid_x : index to i32
              %c0_5 = arith.constant 0 : i32
              %c1_5 = arith.constant 1 : i32
              %A_acc_20 = memref.alloca() : memref<f32>
              %226 = arith.cmpi slt, %c0_5, %p : i32
              scf.if %226 {
                %227 = arith.muli %j_8, %m overflow<nsw> : i32
                %228 = arith.addi %i_8, %227 overflow<nsw> : i32
                %229 = arith.index_cast %228 : i32 to index
                %230 = memref.load %A[%229] : memref<?xf32>
                memref.store %230, %A_acc_20[] : memref<f32>
                scf.for %k_5 = %c0_5 to %p step %c1_5 : i32 {
                  %231 = memref.load %A_acc_20[] : memref<f32>
                  %232 = arith.muli %k_5, %m overflow<nsw> : i32
                  %233 = arith.addi %i_8, %232 overflow<nsw> : i32
                  %234 = arith.index_cast %233 : i32 to index
                  %235 = memref.load %B[%234] : memref<?xf32>
                  %236 = arith.muli %j_8, %p overflow<nsw> : i32
                  %237 = arith.addi %k_5, %236 overflow<nsw> : i32
                  %238 = arith.index_cast %237 : i32 to index
                  %239 = memref.load %C[%238] : memref<?xf32>
                  %240 = arith.mulf %235, %239 : f32
                  %241 = arith.addf %231, %240 : f32
                  memref.store %241, %A_acc_20[] : memref<f32>
                }
                %242 = memref.load %A_acc_20[] : memref<f32>
                memref.store %242, %A[%229] : memref<?xf32>
              }
            }
            scf.if %in_bounds_3 {
              %j_9 = arith.index_cast %j_idx_1 : index to i32
              %i_9 = arith.index_cast %i_idx : index to i32
              %c0_6 = arith.constant 0 : i32
              %c1_6 = arith.constant 1 : i32
              %A_acc_21 = memref.alloca() : memref<f32>
              %243 = arith.cmpi slt, %c0_6, %p : i32
              scf.if %243 {
                %244 = arith.muli %j_9, %m overflow<nsw> : i32
                %245 = arith.addi %i_9, %244 overflow<nsw> : i32
                %246 = arith.index_cast %245 : i32 to index
                %247 = memref.load %A[%246] : memref<?xf32>
                memref.store %247, %A_acc_21[] : memref<f32>
                scf.for %k_6 = %c0_6 to %p step %c1_6 : i32 {
                  %248 = memref.load %A_acc_21[] : memref<f32>
                  %249 = arith.muli %k_6, %m overflow<nsw> : i32
                  %250 = arith.addi %i_9, %249 overflow<nsw> : i32
                  %251 = arith.index_cast %250 : i32 to index
                  %252 = memref.load %B[%251] : memref<?xf32>
                  %253 = arith.muli %j_9, %p overflow<nsw> : i32
                  %254 = arith.addi %k_6, %253 overflow<nsw> : i32
                  %255 = arith.index_cast %254 : i32 to index
                  %256 = memref.load %C[%255] : memref<?xf32>
                  %257 = arith.mulf %252, %256 : f32
                  %258 = arith.addf %248, %257 : f32
                  memref.store %258, %A_acc_21[] : memref<f32>
                }
                %259 = memref.load %A_acc_21[] : memref<f32>
                memref.store %259, %A[%246] : memref<?xf32>
              }
            }
            scf.if %in_bounds_4 {
              %j_10 = arith.index_cast %j_idx_1 : index to i32
              %i_10 = arith.index_cast %i_idx_1 : index to i32
              %c0_7 = arith.constant 0 : i32
              %c1_7 = arith.constant 1 : i32
              %A_acc_22 = memref.alloca() : memref<f32>
              %260 = arith.cmpi slt, %c0_7, %p : i32
              scf.if %260 {
                %261 = arith.muli %j_10, %m overflow<nsw> : i32
                %262 = arith.addi %i_10, %261 overflow<nsw> : i32
                %263 = arith.index_cast %262 : i32 to index
                %264 = memref.load %A[%263] : memref<?xf32>
                memref.store %264, %A_acc_22[] : memref<f32>
                scf.for %k_7 = %c0_7 to %p step %c1_7 : i32 {
                  %265 = memref.load %A_acc_22[] : memref<f32>
                  %266 = arith.muli %k_7, %m overflow<nsw> : i32
                  %267 = arith.addi %i_10, %266 overflow<nsw> : i32
                  %268 = arith.index_cast %267 : i32 to index
                  %269 = memref.load %B[%268] : memref<?xf32>
                  %270 = arith.muli %j_10, %p overflow<nsw> : i32
                  %271 = arith.addi %k_7, %270 overflow<nsw> : i32
                  %272 = arith.index_cast %271 : i32 to index
                  %273 = memref.load %C[%272] : memref<?xf32>
                  %274 = arith.mulf %269, %273 : f32
                  %275 = arith.addf %265, %274 : f32
                  memref.store %275, %A_acc_22[] : memref<f32>
                }
                %276 = memref.load %A_acc_22[] : memref<f32>
                memref.store %276, %A[%263] : memref<?xf32>
              }
            }
            scf.if %in_bounds {
              %j_11 = arith.index_cast %j_idx_1 : index to i32
              %i_11 = arith.index_cast %i_idx_2 : index to i32
              %c0_8 = arith.constant 0 : i32
              %c1_8 = arith.constant 1 : i32
              %A_acc_23 = memref.alloca() : memref<f32>
              %277 = arith.cmpi slt, %c0_8, %p : i32
              scf.if %277 {
                %278 = arith.muli %j_11, %m overflow<nsw> : i32
                %279 = arith.addi %i_11, %278 overflow<nsw> : i32
                %280 = arith.index_cast %279 : i32 to index
                %281 = memref.load %A[%280] : memref<?xf32>
                memref.store %281, %A_acc_23[] : memref<f32>
                scf.for %k_8 = %c0_8 to %p step %c1_8 : i32 {
                  %282 = memref.load %A_acc_23[] : memref<f32>
                  %283 = arith.muli %k_8, %m overflow<nsw> : i32
                  %284 = arith.addi %i_11, %283 overflow<nsw> : i32
                  %285 = arith.index_cast %284 : i32 to index
                  %286 = memref.load %B[%285] : memref<?xf32>
                  %287 = arith.muli %j_11, %p overflow<nsw> : i32
                  %288 = arith.addi %k_8, %287 overflow<nsw> : i32
                  %289 = arith.index_cast %288 : i32 to index
                  %290 = memref.load %C[%289] : memref<?xf32>
                  %291 = arith.mulf %286, %290 : f32
                  %292 = arith.addf %282, %291 : f32
                  memref.store %292, %A_acc_23[] : memref<f32>
                }
                %293 = memref.load %A_acc_23[] : memref<f32>
                memref.store %293, %A[%280] : memref<?xf32>
              }
            }
          }
          %in_bounds_6 = arith.cmpi slt, %j_idx_2, %j_ub : index
          scf.if %in_bounds_6 {
            scf.if %in_bounds_2 {
              %j_12 = arith.index_cast %j_idx_2 : index to i32
              %i_12 = arith.index_cast %gid_x : index to i32
              %c0_9 = arith.constant 0 : i32
              %c1_9 = arith.constant 1 : i32
              %A_acc_24 = memref.alloca() : memref<f32>
              %294 = arith.cmpi slt, %c0_9, %p : i32
              scf.if %294 {
                %295 = arith.muli %j_12, %m overflow<nsw> : i32
                %296 = arith.addi %i_12, %295 overflow<nsw> : i32
                %297 = arith.index_cast %296 : i32 to index
                %298 = memref.load %A[%297] : memref<?xf32>
                memref.store %298, %A_acc_24[] : memref<f32>
                scf.for %k_9 = %c0_9 to %p step %c1_9 : i32 {
                  %299 = memref.load %A_acc_24[] : memref<f32>
                  %300 = arith.muli %k_9, %m overflow<nsw> : i32
                  %301 = arith.addi %i_12, %300 overflow<nsw> : i32
                  %302 = arith.index_cast %301 : i32 to index
                  %303 = memref.load %B[%302] : memref<?xf32>
                  %304 = arith.muli %j_12, %p overflow<nsw> : i32
                  %305 = arith.addi %k_9, %304 overflow<nsw> : i32
                  %306 = arith.index_cast %305 : i32 to index
                  %307 = memref.load %C[%306] : memref<?xf32>
                  %308 = arith.mulf %303, %307 : f32
                  %309 = arith.addf %299, %308 : f32
                  memref.store %309, %A_acc_24[] : memref<f32>
                }
                %310 = memref.load %A_acc_24[] : memref<f32>
                memref.store %310, %A[%297] : memref<?xf32>
              }
            }
            scf.if %in_bounds_3 {
              %j_13 = arith.index_cast %j_idx_2 : index to i32
              %i_13 = arith.index_cast %i_idx : index to i32
              %c0_10 = arith.constant 0 : i32
              %c1_10 = arith.constant 1 : i32
              %A_acc_25 = memref.alloca() : memref<f32>
              %311 = arith.cmpi slt, %c0_10, %p : i32
              scf.if %311 {
                %312 = arith.muli %j_13, %m overflow<nsw> : i32
                %313 = arith.addi %i_13, %312 overflow<nsw> : i32
                %314 = arith.index_cast %313 : i32 to index
                %315 = memref.load %A[%314] : memref<?xf32>
                memref.store %315, %A_acc_25[] : memref<f32>
                scf.for %k_10 = %c0_10 to %p step %c1_10 : i32 {
                  %316 = memref.load %A_acc_25[] : memref<f32>
                  %317 = arith.muli %k_10, %m overflow<nsw> : i32
                  %318 = arith.addi %i_13, %317 overflow<nsw> : i32
                  %319 = arith.index_cast %318 : i32 to index
                  %320 = memref.load %B[%319] : memref<?xf32>
                  %321 = arith.muli %j_13, %p overflow<nsw> : i32
                  %322 = arith.addi %k_10, %321 overflow<nsw> : i32
                  %323 = arith.index_cast %322 : i32 to index
                  %324 = memref.load %C[%323] : memref<?xf32>
                  %325 = arith.mulf %320, %324 : f32
                  %326 = arith.addf %316, %325 : f32
                  memref.store %326, %A_acc_25[] : memref<f32>
                }
                %327 = memref.load %A_acc_25[] : memref<f32>
                memref.store %327, %A[%314] : memref<?xf32>
              }
            }
            scf.if %in_bounds_4 {
              %j_14 = arith.index_cast %j_idx_2 : index to i32
              %i_14 = arith.index_cast %i_idx_1 : index to i32
              %c0_11 = arith.constant 0 : i32
              %c1_11 = arith.constant 1 : i32
              %A_acc_26 = memref.alloca() : memref<f32>
              %328 = arith.cmpi slt, %c0_11, %p : i32
              scf.if %328 {
                %329 = arith.muli %j_14, %m overflow<nsw> : i32
                %330 = arith.addi %i_14, %329 overflow<nsw> : i32
                %331 = arith.index_cast %330 : i32 to index
                %332 = memref.load %A[%331] : memref<?xf32>
                memref.store %332, %A_acc_26[] : memref<f32>
                scf.for %k_11 = %c0_11 to %p step %c1_11 : i32 {
                  %333 = memref.load %A_acc_26[] : memref<f32>
                  %334 = arith.muli %k_11, %m overflow<nsw> : i32
                  %335 = arith.addi %i_14, %334 overflow<nsw> : i32
                  %336 = arith.index_cast %335 : i32 to index
                  %337 = memref.load %B[%336] : memref<?xf32>
                  %338 = arith.muli %j_14, %p overflow<nsw> : i32
                  %339 = arith.addi %k_11, %338 overflow<nsw> : i32
                  %340 = arith.index_cast %339 : i32 to index
                  %341 = memref.load %C[%340] : memref<?xf32>
                  %342 = arith.mulf %337, %341 : f32
                  %343 = arith.addf %333, %342 : f32
                  memref.store %343, %A_acc_26[] : memref<f32>
                }
                %344 = memref.load %A_acc_26[] : memref<f32>
                memref.store %344, %A[%331] : memref<?xf32>
              }
            }
            scf.if %in_bounds {
              %j_15 = arith.index_cast %j_idx_2 : index to i32
              %i_15 = arith.index_cast %i_idx_2 : index to i32
              %c0_12 = arith.constant 0 : i32
              %c1_12 = arith.constant 1 : i32
              %A_acc_27 = memref.alloca() : memref<f32>
              %345 = arith.cmpi slt, %c0_12, %p : i32
              scf.if %345 {
                %346 = arith.muli %j_15, %m overflow<nsw> : i32
                %347 = arith.addi %i_15, %346 overflow<nsw> : i32
                %348 = arith.index_cast %347 : i32 to index
                %349 = memref.load %A[%348] : memref<?xf32>
                memref.store %349, %A_acc_27[] : memref<f32>
                scf.for %k_12 = %c0_12 to %p step %c1_12 : i32 {
                  %350 = memref.load %A_acc_27[] : memref<f32>
                  %351 = arith.muli %k_12, %m overflow<nsw> : i32
                  %352 = arith.addi %i_15, %351 overflow<nsw> : i32
                  %353 = arith.index_cast %352 : i32 to index
                  %354 = memref.load %B[%353] : memref<?xf32>
                  %355 = arith.muli %j_15, %p overflow<nsw> : i32
                  %356 = arith.addi %k_12, %355 overflow<nsw> : i32
                  %357 = arith.index_cast %356 : i32 to index
                  %358 = memref.load %C[%357] : memref<?xf32>
                  %359 = arith.mulf %354, %358 : f32
                  %360 = arith.addf %350, %359 : f32
                  memref.store %360, %A_acc_27[] : memref<f32>
                }
                %361 = memref.load %A_acc_27[] : memref<f32>
                memref.store %361, %A[%348] : memref<?xf32>
              }
            }
          }
          scf.if %in_bounds_1 {
            scf.if %in_bounds_2 {
              %j_16 = arith.index_cast %j_idx_3 : index to i32
              %i_16 = arith.index_cast %gid_x : index to i32
              %c0_13 = arith.constant 0 : i32
              %c1_13 = arith.constant 1 : i32
              %A_acc_28 = memref.alloca() : memref<f32>
              %362 = arith.cmpi slt, %c0_13, %p : i32
              scf.if %362 {
                %363 = arith.muli %j_16, %m overflow<nsw> : i32
                %364 = arith.addi %i_16, %363 overflow<nsw> : i32
                %365 = arith.index_cast %364 : i32 to index
                %366 = memref.load %A[%365] : memref<?xf32>
                memref.store %366, %A_acc_28[] : memref<f32>
                scf.for %k_13 = %c0_13 to %p step %c1_13 : i32 {
                  %367 = memref.load %A_acc_28[] : memref<f32>
                  %368 = arith.muli %k_13, %m overflow<nsw> : i32
                  %369 = arith.addi %i_16, %368 overflow<nsw> : i32
                  %370 = arith.index_cast %369 : i32 to index
                  %371 = memref.load %B[%370] : memref<?xf32>
                  %372 = arith.muli %j_16, %p overflow<nsw> : i32
                  %373 = arith.addi %k_13, %372 overflow<nsw> : i32
                  %374 = arith.index_cast %373 : i32 to index
                  %375 = memref.load %C[%374] : memref<?xf32>
                  %376 = arith.mulf %371, %375 : f32
                  %377 = arith.addf %367, %376 : f32
                  memref.store %377, %A_acc_28[] : memref<f32>
                }
                %378 = memref.load %A_acc_28[] : memref<f32>
                memref.store %378, %A[%365] : memref<?xf32>
              }
            }
            scf.if %in_bounds_3 {
              %j_17 = arith.index_cast %j_idx_3 : index to i32
              %i_17 = arith.index_cast %i_idx : index to i32
              %c0_14 = arith.constant 0 : i32
              %c1_14 = arith.constant 1 : i32
              %A_acc_29 = memref.alloca() : memref<f32>
              %379 = arith.cmpi slt, %c0_14, %p : i32
              scf.if %379 {
                %380 = arith.muli %j_17, %m overflow<nsw> : i32
                %381 = arith.addi %i_17, %380 overflow<nsw> : i32
                %382 = arith.index_cast %381 : i32 to index
                %383 = memref.load %A[%382] : memref<?xf32>
                memref.store %383, %A_acc_29[] : memref<f32>
                scf.for %k_14 = %c0_14 to %p step %c1_14 : i32 {
                  %384 = memref.load %A_acc_29[] : memref<f32>
                  %385 = arith.muli %k_14, %m overflow<nsw> : i32
                  %386 = arith.addi %i_17, %385 overflow<nsw> : i32
                  %387 = arith.index_cast %386 : i32 to index
                  %388 = memref.load %B[%387] : memref<?xf32>
                  %389 = arith.muli %j_17, %p overflow<nsw> : i32
                  %390 = arith.addi %k_14, %389 overflow<nsw> : i32
                  %391 = arith.index_cast %390 : i32 to index
                  %392 = memref.load %C[%391] : memref<?xf32>
                  %393 = arith.mulf %388, %392 : f32
                  %394 = arith.addf %384, %393 : f32
                  memref.store %394, %A_acc_29[] : memref<f32>
                }
                %395 = memref.load %A_acc_29[] : memref<f32>
                memref.store %395, %A[%382] : memref<?xf32>
              }
            }
            scf.if %in_bounds_4 {
              %j_18 = arith.index_cast %j_idx_3 : index to i32
              %i_18 = arith.index_cast %i_idx_1 : index to i32
              %c0_15 = arith.constant 0 : i32
              %c1_15 = arith.constant 1 : i32
              %A_acc_30 = memref.alloca() : memref<f32>
              %396 = arith.cmpi slt, %c0_15, %p : i32
              scf.if %396 {
                %397 = arith.muli %j_18, %m overflow<nsw> : i32
                %398 = arith.addi %i_18, %397 overflow<nsw> : i32
                %399 = arith.index_cast %398 : i32 to index
                %400 = memref.load %A[%399] : memref<?xf32>
                memref.store %400, %A_acc_30[] : memref<f32>
                scf.for %k_15 = %c0_15 to %p step %c1_15 : i32 {
                  %401 = memref.load %A_acc_30[] : memref<f32>
                  %402 = arith.muli %k_15, %m overflow<nsw> : i32
                  %403 = arith.addi %i_18, %402 overflow<nsw> : i32
                  %404 = arith.index_cast %403 : i32 to index
                  %405 = memref.load %B[%404] : memref<?xf32>
                  %406 = arith.muli %j_18, %p overflow<nsw> : i32
                  %407 = arith.addi %k_15, %406 overflow<nsw> : i32
                  %408 = arith.index_cast %407 : i32 to index
                  %409 = memref.load %C[%408] : memref<?xf32>
                  %410 = arith.mulf %405, %409 : f32
                  %411 = arith.addf %401, %410 : f32
                  memref.store %411, %A_acc_30[] : memref<f32>
                }
                %412 = memref.load %A_acc_30[] : memref<f32>
                memref.store %412, %A[%399] : memref<?xf32>
              }
            }
            scf.if %in_bounds {
              %j_19 = arith.index_cast %j_idx_3 : index to i32
              %i_19 = arith.index_cast %i_idx_2 : index to i32
              %c0_16 = arith.constant 0 : i32
              %c1_16 = arith.constant 1 : i32
              %A_acc_31 = memref.alloca() : memref<f32>
              %413 = arith.cmpi slt, %c0_16, %p : i32
              scf.if %413 {
                %414 = arith.muli %j_19, %m overflow<nsw> : i32
                %415 = arith.addi %i_19, %414 overflow<nsw> : i32
                %416 = arith.index_cast %415 : i32 to index
                %417 = memref.load %A[%416] : memref<?xf32>
                memref.store %417, %A_acc_31[] : memref<f32>
                scf.for %k_16 = %c0_16 to %p step %c1_16 : i32 {
                  %418 = memref.load %A_acc_31[] : memref<f32>
                  %419 = arith.muli %k_16, %m overflow<nsw> : i32
                  %420 = arith.addi %i_19, %419 overflow<nsw> : i32
                  %421 = arith.index_cast %420 : i32 to index
                  %422 = memref.load %B[%421] : memref<?xf32>
                  %423 = arith.muli %j_19, %p overflow<nsw> : i32
                  %424 = arith.addi %k_16, %423 overflow<nsw> : i32
                  %425 = arith.index_cast %424 : i32 to index
                  %426 = memref.load %C[%425] : memref<?xf32>
                  %427 = arith.mulf %422, %426 : f32
                  %428 = arith.addf %418, %427 : f32
                  memref.store %428, %A_acc_31[] : memref<f32>
                }
                %429 = memref.load %A_acc_31[] : memref<f32>
                memref.store %429, %A[%416] : memref<?xf32>
              }
            }
          }
        }
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "matmul_kernel", gpu.known_block_size = array<i32: 4, 4, 1>, gpu.kernel, arg_attrs = [{agpu.name = "A", agpu.ctype = "float"}, {agpu.name = "B", agpu.ctype = "float", agpu.const}, {agpu.name = "C", agpu.ctype = "float", agpu.const}, {agpu.name = "m", agpu.ctype = "int"}, {agpu.name = "n", agpu.ctype = "int"}, {agpu.name = "p", agpu.ctype = "int"}]} : () -> ()
  }) : () -> ()
  func.func @matmul(%A: memref<?xf32> {agpu.name = "A", agpu.ctype = "float"}, %B: memref<?xf32> {agpu.name = "B", agpu.ctype = "float", agpu.const}, %C: memref<?xf32> {agpu.name = "C", agpu.ctype = "float", agpu.const}, %m: i32 {agpu.name = "m", agpu.ctype = "int"}, %n: i32 {agpu.name = "n", agpu.ctype = "int"}, %p: i32 {agpu.name = "p", agpu.ctype = "int"}) {
    %0 = arith.constant 1 : index
    %1 = arith.index_cast %m : i32 to index
    %2 = arith.constant 16 : index
    %3 = arith.ceildivsi %1, %2 : index
    %grid_x = arith.maxsi %3, %0 : index
    %4 = arith.index_cast %n : i32 to index
    %5 = arith.ceildivsi %4, %2 : index
    %6 = arith.maxsi %5, %0 : index
    %7 = arith.constant 65535 : index
    %grid_y = arith.minsi %6, %7 : index
    %8 = arith.constant 4 : index
    "gpu.launch_func"(%grid_x, %grid_y, %0, %8, %8, %0, %A, %B, %C, %m, %n, %p) <{kernel = @kernels::@matmul_kernel, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 6, 0>}> : (index, index, index, index, index, index, memref<?xf32>, memref<?xf32>, memref<?xf32>, i32, i32, i32) -> ()
    func.return
  }
}

