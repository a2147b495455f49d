// RUN: autogpu-opt %s -p 'gpu-cache-shared{assume_no_alias=true max_extent=5 remarks=true}' 2>&1 | filecheck %s

// Blocked register tiles of a convolution (examples/conv2d.c; 4x4 threads of 2x3 outputs,
// agpu-unroll-parallel{x=2 y=3 distribution=blocked}): thread tx reads in[(2tx + r + u) + ...].
// The threads' dimension (stride 2) overlaps the replicas-and-window one (stride 1, 2 + 5 - 1
// long), so it folds into it: one (4*2 + 5 - 1) x (4*3 + 5 - 1) = 12x16 halo tile for the
// block, not a 6x7 window per thread (6x7x4x4 = 672 elements before the fold). Each read of
// the tile steps 2 elements per thread (the fold's scale), 12 per row.
// Input: autogpu-opt examples/conv2d.c -p 'agpu-stage-accumulations{assume_no_alias=true},
//   agpu-unroll-parallel{x=2 y=3 distribution=blocked},autogpu-vanilla{block_size=4 block_y=4}'

// CHECK: remark: gpu-cache-shared: @conv2d_kernel: 'in' cached (halo) in __shared__ in_sh[192] (extents 12x16, 6 load(s), halo window)
// CHECK-LABEL: "gpu.func"
// CHECK:      %[[IN_SH:.*]] = memref.alloca() : memref<192xf32, 3 : i32>
// CHECK:      %[[TWO:.*]] = arith.constant 2 : index
// CHECK:      %[[TX:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}>
// CHECK:      %[[ROW:.*]] = arith.constant 12 : index
// CHECK:      %[[U:.*]] = arith.index_cast %u : i32 to index
// CHECK-NEXT: %[[STEP:.*]] = arith.muli %[[TX]], %[[TWO]] : index
// CHECK-NEXT: %[[X:.*]] = arith.addi %[[U]], %[[STEP]] : index
// CHECK:      %[[Y:.*]] = arith.muli %{{.*}}, %[[ROW]] : index
// CHECK-NEXT: %[[AT:.*]] = arith.addi %[[X]], %[[Y]] : index
// CHECK-NEXT: %{{.*}} = memref.load %[[IN_SH]][%[[AT]]] : memref<192xf32, 3 : i32>

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, memref<?xf32>, memref<?xf32>, i32, i32, i32) -> (), kernel}> ({
    ^bb0(%out: memref<?xf32>, %in: memref<?xf32>, %tmpl: memref<?xf32>, %n: i32, %m: i32, %t: i32):
      %c1 = arith.constant 1 : i32
      %0 = arith.addi %n, %t overflow<nsw> : i32
      %pn = arith.subi %0, %c1 overflow<nsw> : i32
      %i_ub = arith.index_cast %n : i32 to index
      %1 = arith.constant 1 : index
      %2 = arith.constant 2 : index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bdx = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %3 = arith.muli %bx, %bdx overflow<nsw> : index
      %4 = arith.muli %3, %2 overflow<nsw> : index
      %5 = arith.muli %tx, %2 overflow<nsw> : index
      %gid_x = arith.addi %4, %5 overflow<nsw> : index
      %j_ub = arith.index_cast %m : i32 to index
      %6 = arith.constant 3 : index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %bdy = "gpu.block_dim"() <{dimension = #gpu<dim y>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %7 = arith.muli %by, %bdy overflow<nsw> : index
      %8 = arith.muli %7, %6 overflow<nsw> : index
      %9 = arith.muli %ty, %6 overflow<nsw> : index
      %gid_y = arith.addi %8, %9 overflow<nsw> : index
      %gdy = "gpu.grid_dim"() <{dimension = #gpu<dim y>}> : () -> index
      %10 = arith.muli %gdy, %bdy overflow<nsw> : index
      %11 = arith.muli %10, %6 overflow<nsw> : index
      %i_idx = arith.addi %gid_x, %1 overflow<nsw> : index
      %in_bounds = arith.cmpi slt, %i_idx, %i_ub : index
      scf.for %j_idx = %gid_y to %j_ub step %11 {
        %j_idx_1 = arith.addi %j_idx, %1 overflow<nsw> : index
        %j_idx_2 = arith.addi %j_idx, %2 overflow<nsw> : index
        %in_bounds_1 = arith.cmpi slt, %j_idx_2, %j_ub : index
        %full_tile = arith.andi %in_bounds_1, %in_bounds : i1
        scf.if %full_tile {
          %j = arith.index_cast %j_idx : index to i32
          %j_1 = arith.index_cast %j_idx_1 : index to i32
          %j_2 = arith.index_cast %j_idx_2 : index to i32
          %i = arith.index_cast %gid_x : index to i32
          %i_1 = arith.index_cast %i_idx : index to i32
          %cst = arith.constant 0.000000e+00 : f32
          %c0 = arith.constant 0 : i32
          %sum = memref.alloca() : memref<f32>
          %sum_1 = memref.alloca() : memref<f32>
          %sum_2 = memref.alloca() : memref<f32>
          %sum_3 = memref.alloca() : memref<f32>
          %sum_4 = memref.alloca() : memref<f32>
          %sum_5 = memref.alloca() : memref<f32>
          memref.store %cst, %sum[] : memref<f32>
          memref.store %cst, %sum_1[] : memref<f32>
          memref.store %cst, %sum_2[] : memref<f32>
          memref.store %cst, %sum_3[] : memref<f32>
          memref.store %cst, %sum_4[] : memref<f32>
          memref.store %cst, %sum_5[] : memref<f32>
          scf.for %v = %c0 to %t step %c1 : i32 {
            scf.for %u = %c0 to %t step %c1 : i32 {
              %sum_6 = memref.load %sum[] : memref<f32>
              %sum_7 = memref.load %sum_1[] : memref<f32>
              %sum_8 = memref.load %sum_2[] : memref<f32>
              %sum_9 = memref.load %sum_3[] : memref<f32>
              %sum_10 = memref.load %sum_4[] : memref<f32>
              %sum_11 = memref.load %sum_5[] : memref<f32>
              %12 = arith.addi %i, %u overflow<nsw> : i32
              %13 = arith.addi %i_1, %u overflow<nsw> : i32
              %14 = arith.addi %j, %v overflow<nsw> : i32
              %15 = arith.addi %j_1, %v overflow<nsw> : i32
              %16 = arith.addi %j_2, %v overflow<nsw> : i32
              %17 = arith.muli %14, %pn overflow<nsw> : i32
              %18 = arith.muli %15, %pn overflow<nsw> : i32
              %19 = arith.muli %16, %pn overflow<nsw> : i32
              %20 = arith.addi %12, %17 overflow<nsw> : i32
              %21 = arith.addi %13, %17 overflow<nsw> : i32
              %22 = arith.addi %12, %18 overflow<nsw> : i32
              %23 = arith.addi %13, %18 overflow<nsw> : i32
              %24 = arith.addi %12, %19 overflow<nsw> : i32
              %25 = arith.addi %13, %19 overflow<nsw> : i32
              %26 = arith.index_cast %20 : i32 to index
              %27 = arith.index_cast %21 : i32 to index
              %28 = arith.index_cast %22 : i32 to index
              %29 = arith.index_cast %23 : i32 to index
              %30 = arith.index_cast %24 : i32 to index
              %31 = arith.index_cast %25 : i32 to index
              %32 = memref.load %in[%26] : memref<?xf32>
              %33 = memref.load %in[%27] : memref<?xf32>
              %34 = memref.load %in[%28] : memref<?xf32>
              %35 = memref.load %in[%29] : memref<?xf32>
              %36 = memref.load %in[%30] : memref<?xf32>
              %37 = memref.load %in[%31] : memref<?xf32>
              %38 = arith.muli %v, %t overflow<nsw> : i32
              %39 = arith.addi %u, %38 overflow<nsw> : i32
              %40 = arith.index_cast %39 : i32 to index
              %41 = memref.load %tmpl[%40] : memref<?xf32>
              %42 = arith.mulf %32, %41 : f32
              %43 = arith.mulf %33, %41 : f32
              %44 = arith.mulf %34, %41 : f32
              %45 = arith.mulf %35, %41 : f32
              %46 = arith.mulf %36, %41 : f32
              %47 = arith.mulf %37, %41 : f32
              %48 = arith.addf %sum_6, %42 : f32
              %49 = arith.addf %sum_7, %43 : f32
              %50 = arith.addf %sum_8, %44 : f32
              %51 = arith.addf %sum_9, %45 : f32
              %52 = arith.addf %sum_10, %46 : f32
              %53 = arith.addf %sum_11, %47 : f32
              memref.store %48, %sum[] : memref<f32>
              memref.store %49, %sum_1[] : memref<f32>
              memref.store %50, %sum_2[] : memref<f32>
              memref.store %51, %sum_3[] : memref<f32>
              memref.store %52, %sum_4[] : memref<f32>
              memref.store %53, %sum_5[] : memref<f32>
            }
          }
          %sum_12 = memref.load %sum[] : memref<f32>
          %sum_13 = memref.load %sum_1[] : memref<f32>
          %sum_14 = memref.load %sum_2[] : memref<f32>
          %sum_15 = memref.load %sum_3[] : memref<f32>
          %sum_16 = memref.load %sum_4[] : memref<f32>
          %sum_17 = memref.load %sum_5[] : memref<f32>
          %54 = arith.muli %j, %n overflow<nsw> : i32
          %55 = arith.muli %j_1, %n overflow<nsw> : i32
          %56 = arith.muli %j_2, %n overflow<nsw> : i32
          %57 = arith.addi %i, %54 overflow<nsw> : i32
          %58 = arith.addi %i_1, %54 overflow<nsw> : i32
          %59 = arith.addi %i, %55 overflow<nsw> : i32
          %60 = arith.addi %i_1, %55 overflow<nsw> : i32
          %61 = arith.addi %i, %56 overflow<nsw> : i32
          %62 = arith.addi %i_1, %56 overflow<nsw> : i32
          %63 = arith.index_cast %57 : i32 to index
          %64 = arith.index_cast %58 : i32 to index
          %65 = arith.index_cast %59 : i32 to index
          %66 = arith.index_cast %60 : i32 to index
          %67 = arith.index_cast %61 : i32 to index
          %68 = arith.index_cast %62 : i32 to index
          memref.store %sum_12, %out[%63] : memref<?xf32>
          memref.store %sum_13, %out[%64] : memref<?xf32>
          memref.store %sum_14, %out[%65] : memref<?xf32>
          memref.store %sum_15, %out[%66] : memref<?xf32>
          memref.store %sum_16, %out[%67] : memref<?xf32>
          memref.store %sum_17, %out[%68] : memref<?xf32>
        } else {
          %in_bounds_2 = arith.cmpi slt, %gid_x, %i_ub : index
          scf.if %in_bounds_2 {
            %j_3 = arith.index_cast %j_idx : index to i32
            %i_2 = arith.index_cast %gid_x : index to i32
            %cst_1 = arith.constant 0.000000e+00 : f32
            %c0_1 = arith.constant 0 : i32
            %sum_18 = memref.alloca() : memref<f32>
            memref.store %cst_1, %sum_18[] : memref<f32>
            scf.for %v_1 = %c0_1 to %t step %c1 : i32 {
              scf.for %u_1 = %c0_1 to %t step %c1 : i32 {
                %sum_19 = memref.load %sum_18[] : memref<f32>
                %69 = arith.addi %i_2, %u_1 overflow<nsw> : i32
                %70 = arith.addi %j_3, %v_1 overflow<nsw> : i32
                %71 = arith.muli %70, %pn overflow<nsw> : i32
                %72 = arith.addi %69, %71 overflow<nsw> : i32
                %73 = arith.index_cast %72 : i32 to index
                %74 = memref.load %in[%73] : memref<?xf32>
                %75 = arith.muli %v_1, %t overflow<nsw> : i32
                %76 = arith.addi %u_1, %75 overflow<nsw> : i32
                %77 = arith.index_cast %76 : i32 to index
                %78 = memref.load %tmpl[%77] : memref<?xf32>
                %79 = arith.mulf %74, %78 : f32
                %80 = arith.addf %sum_19, %79 : f32
                memref.store %80, %sum_18[] : memref<f32>
              }
            }
            %sum_20 = memref.load %sum_18[] : memref<f32>
            %81 = arith.muli %j_3, %n overflow<nsw> : i32
            %82 = arith.addi %i_2, %81 overflow<nsw> : i32
            %83 = arith.index_cast %82 : i32 to index
            memref.store %sum_20, %out[%83] : memref<?xf32>
          }
          scf.if %in_bounds {
            %j_4 = arith.index_cast %j_idx : index to i32
            %i_3 = arith.index_cast %i_idx : index to i32
            %cst_2 = arith.constant 0.000000e+00 : f32
            %c0_2 = arith.constant 0 : i32
            %sum_21 = memref.alloca() : memref<f32>
            memref.store %cst_2, %sum_21[] : memref<f32>
            scf.for %v_2 = %c0_2 to %t step %c1 : i32 {
              scf.for %u_2 = %c0_2 to %t step %c1 : i32 {
                %sum_22 = memref.load %sum_21[] : memref<f32>
                %84 = arith.addi %i_3, %u_2 overflow<nsw> : i32
                %85 = arith.addi %j_4, %v_2 overflow<nsw> : i32
                %86 = arith.muli %85, %pn overflow<nsw> : i32
                %87 = arith.addi %84, %86 overflow<nsw> : i32
                %88 = arith.index_cast %87 : i32 to index
                %89 = memref.load %in[%88] : memref<?xf32>
                %90 = arith.muli %v_2, %t overflow<nsw> : i32
                %91 = arith.addi %u_2, %90 overflow<nsw> : i32
                %92 = arith.index_cast %91 : i32 to index
                %93 = memref.load %tmpl[%92] : memref<?xf32>
                %94 = arith.mulf %89, %93 : f32
                %95 = arith.addf %sum_22, %94 : f32
                memref.store %95, %sum_21[] : memref<f32>
              }
            }
            %sum_23 = memref.load %sum_21[] : memref<f32>
            %96 = arith.muli %j_4, %n overflow<nsw> : i32
            %97 = arith.addi %i_3, %96 overflow<nsw> : i32
            %98 = arith.index_cast %97 : i32 to index
            memref.store %sum_23, %out[%98] : memref<?xf32>
          }
          %in_bounds_3 = arith.cmpi slt, %j_idx_1, %j_ub : index
          scf.if %in_bounds_3 {
            scf.if %in_bounds_2 {
              %j_5 = arith.index_cast %j_idx_1 : index to i32
              %i_4 = arith.index_cast %gid_x : index to i32
              %cst_3 = arith.constant 0.000000e+00 : f32
              %c0_3 = arith.constant 0 : i32
              %sum_24 = memref.alloca() : memref<f32>
              memref.store %cst_3, %sum_24[] : memref<f32>
              scf.for %v_3 = %c0_3 to %t step %c1 : i32 {
                scf.for %u_3 = %c0_3 to %t step %c1 : i32 {
                  %sum_25 = memref.load %sum_24[] : memref<f32>
                  %99 = arith.addi %i_4, %u_3 overflow<nsw> : i32
                  %100 = arith.addi %j_5, %v_3 overflow<nsw> : i32
                  %101 = arith.muli %100, %pn overflow<nsw> : i32
                  %102 = arith.addi %99, %101 overflow<nsw> : i32
                  %103 = arith.index_cast %102 : i32 to index
                  %104 = memref.load %in[%103] : memref<?xf32>
                  %105 = arith.muli %v_3, %t overflow<nsw> : i32
                  %106 = arith.addi %u_3, %105 overflow<nsw> : i32
                  %107 = arith.index_cast %106 : i32 to index
                  %108 = memref.load %tmpl[%107] : memref<?xf32>
                  %109 = arith.mulf %104, %108 : f32
                  %110 = arith.addf %sum_25, %109 : f32
                  memref.store %110, %sum_24[] : memref<f32>
                }
              }
              %sum_26 = memref.load %sum_24[] : memref<f32>
              %111 = arith.muli %j_5, %n overflow<nsw> : i32
              %112 = arith.addi %i_4, %111 overflow<nsw> : i32
              %113 = arith.index_cast %112 : i32 to index
              memref.store %sum_26, %out[%113] : memref<?xf32>
            }
            scf.if %in_bounds {
              %j_6 = arith.index_cast %j_idx_1 : index to i32
              %i_5 = arith.index_cast %i_idx : index to i32
              %cst_4 = arith.constant 0.000000e+00 : f32
              %c0_4 = arith.constant 0 : i32
              %sum_27 = memref.alloca() : memref<f32>
              memref.store %cst_4, %sum_27[] : memref<f32>
              scf.for %v_4 = %c0_4 to %t step %c1 : i32 {
                scf.for %u_4 = %c0_4 to %t step %c1 : i32 {
                  %sum_28 = memref.load %sum_27[] : memref<f32>
                  %114 = arith.addi %i_5, %u_4 overflow<nsw> : i32
                  %115 = arith.addi %j_6, %v_4 overflow<nsw> : i32
                  %116 = arith.muli %115, %pn overflow<nsw> : i32
                  %117 = arith.addi %114, %116 overflow<nsw> : i32
                  %118 = arith.index_cast %117 : i32 to index
                  %119 = memref.load %in[%118] : memref<?xf32>
                  %120 = arith.muli %v_4, %t overflow<nsw> : i32
                  %121 = arith.addi %u_4, %120 overflow<nsw> : i32
                  %122 = arith.index_cast %121 : i32 to index
                  %123 = memref.load %tmpl[%122] : memref<?xf32>
                  %124 = arith.mulf %119, %123 : f32
                  %125 = arith.addf %sum_28, %124 : f32
                  memref.store %125, %sum_27[] : memref<f32>
                }
              }
              %sum_29 = memref.load %sum_27[] : memref<f32>
              %126 = arith.muli %j_6, %n overflow<nsw> : i32
              %127 = arith.addi %i_5, %126 overflow<nsw> : i32
              %128 = arith.index_cast %127 : i32 to index
              memref.store %sum_29, %out[%128] : memref<?xf32>
            }
          }
          scf.if %in_bounds_1 {
            scf.if %in_bounds_2 {
              %j_7 = arith.index_cast %j_idx_2 : index to i32
              %i_6 = arith.index_cast %gid_x : index to i32
              %cst_5 = arith.constant 0.000000e+00 : f32
              %c0_5 = arith.constant 0 : i32
              %sum_30 = memref.alloca() : memref<f32>
              memref.store %cst_5, %sum_30[] : memref<f32>
              scf.for %v_5 = %c0_5 to %t step %c1 : i32 {
                scf.for %u_5 = %c0_5 to %t step %c1 : i32 {
                  %sum_31 = memref.load %sum_30[] : memref<f32>
                  %129 = arith.addi %i_6, %u_5 overflow<nsw> : i32
                  %130 = arith.addi %j_7, %v_5 overflow<nsw> : i32
                  %131 = arith.muli %130, %pn overflow<nsw> : i32
                  %132 = arith.addi %129, %131 overflow<nsw> : i32
                  %133 = arith.index_cast %132 : i32 to index
                  %134 = memref.load %in[%133] : memref<?xf32>
                  %135 = arith.muli %v_5, %t overflow<nsw> : i32
                  %136 = arith.addi %u_5, %135 overflow<nsw> : i32
                  %137 = arith.index_cast %136 : i32 to index
                  %138 = memref.load %tmpl[%137] : memref<?xf32>
                  %139 = arith.mulf %134, %138 : f32
                  %140 = arith.addf %sum_31, %139 : f32
                  memref.store %140, %sum_30[] : memref<f32>
                }
              }
              %sum_32 = memref.load %sum_30[] : memref<f32>
              %141 = arith.muli %j_7, %n overflow<nsw> : i32
              %142 = arith.addi %i_6, %141 overflow<nsw> : i32
              %143 = arith.index_cast %142 : i32 to index
              memref.store %sum_32, %out[%143] : memref<?xf32>
            }
            scf.if %in_bounds {
              %j_8 = arith.index_cast %j_idx_2 : index to i32
              %i_7 = arith.index_cast %i_idx : index to i32
              %cst_6 = arith.constant 0.000000e+00 : f32
              %c0_6 = arith.constant 0 : i32
              %sum_33 = memref.alloca() : memref<f32>
              memref.store %cst_6, %sum_33[] : memref<f32>
              scf.for %v_6 = %c0_6 to %t step %c1 : i32 {
                scf.for %u_6 = %c0_6 to %t step %c1 : i32 {
                  %sum_34 = memref.load %sum_33[] : memref<f32>
                  %144 = arith.addi %i_7, %u_6 overflow<nsw> : i32
                  %145 = arith.addi %j_8, %v_6 overflow<nsw> : i32
                  %146 = arith.muli %145, %pn overflow<nsw> : i32
                  %147 = arith.addi %144, %146 overflow<nsw> : i32
                  %148 = arith.index_cast %147 : i32 to index
                  %149 = memref.load %in[%148] : memref<?xf32>
                  %150 = arith.muli %v_6, %t overflow<nsw> : i32
                  %151 = arith.addi %u_6, %150 overflow<nsw> : i32
                  %152 = arith.index_cast %151 : i32 to index
                  %153 = memref.load %tmpl[%152] : memref<?xf32>
                  %154 = arith.mulf %149, %153 : f32
                  %155 = arith.addf %sum_34, %154 : f32
                  memref.store %155, %sum_33[] : memref<f32>
                }
              }
              %sum_35 = memref.load %sum_33[] : memref<f32>
              %156 = arith.muli %j_8, %n overflow<nsw> : i32
              %157 = arith.addi %i_7, %156 overflow<nsw> : i32
              %158 = arith.index_cast %157 : i32 to index
              memref.store %sum_35, %out[%158] : memref<?xf32>
            }
          }
        }
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "conv2d_kernel", gpu.known_block_size = array<i32: 4, 4, 1>, gpu.kernel, arg_attrs = [{agpu.name = "out", agpu.ctype = "float"}, {agpu.name = "in", agpu.ctype = "float", agpu.const}, {agpu.name = "tmpl", agpu.ctype = "float", agpu.const}, {agpu.name = "n", agpu.ctype = "int"}, {agpu.name = "m", agpu.ctype = "int"}, {agpu.name = "t", agpu.ctype = "int"}]} : () -> ()
  }) : () -> ()
  func.func @conv2d(%out: memref<?xf32> {agpu.name = "out", agpu.ctype = "float"}, %in: memref<?xf32> {agpu.name = "in", agpu.ctype = "float", agpu.const}, %tmpl: memref<?xf32> {agpu.name = "tmpl", agpu.ctype = "float", agpu.const}, %n: i32 {agpu.name = "n", agpu.ctype = "int"}, %m: i32 {agpu.name = "m", agpu.ctype = "int"}, %t: i32 {agpu.name = "t", agpu.ctype = "int"}) {
    %0 = arith.constant 1 : index
    %1 = arith.index_cast %n : i32 to index
    %2 = arith.constant 8 : index
    %3 = arith.ceildivsi %1, %2 : index
    %grid_x = arith.maxsi %3, %0 : index
    %4 = arith.index_cast %m : i32 to index
    %5 = arith.constant 12 : index
    %6 = arith.ceildivsi %4, %5 : index
    %7 = arith.maxsi %6, %0 : index
    %8 = arith.constant 65535 : index
    %grid_y = arith.minsi %7, %8 : index
    %9 = arith.constant 4 : index
    "gpu.launch_func"(%grid_x, %grid_y, %0, %9, %9, %0, %out, %in, %tmpl, %n, %m, %t) <{kernel = @kernels::@conv2d_kernel, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 6, 0>}> : (index, index, index, index, index, index, memref<?xf32>, memref<?xf32>, memref<?xf32>, i32, i32, i32) -> ()
    func.return
  }
}

