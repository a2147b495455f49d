// RUN: autogpu-opt %s --split-input-file -p 'gpu-cache-shared{assume_no_alias=true}' | filecheck %s

// The direct convolution with the template size a compile-time constant (t = 3), as lowered
// with blocks of 32 threads. Where the paper's conclusion says AutoGPU lost to the hand-written
// FLCC kernel: the threads i0 .. i0+31 of a block read the window
// in[(i0 .. i0+31+2) + (j+v)*pn], v < 3, so the block loads it once: (32 + 2) x 3 elements
// (a halo of t - 1), and the whole 3 x 3 template, once per block, before the grid-stride loop.
// Input: autogpu-opt conv2d-t3.c -p 'autogpu-vanilla{block_size=32}' (host function left out),
// conv2d-t3.c being
//   #define t 3
//   void conv2d(float *out, const float *in, const float *tmpl, int n, int m) {
//     int pn = n + t - 1; // rows of the padded input (its leading dimension)
//   #pragma omp parallel for collapse(2)
//     for (int j = 0; j < m; j++)
//       for (int i = 0; i < n; i++) {
//         float sum = 0.0f;
//         for (int v = 0; v < t; v++)
//           for (int u = 0; u < t; u++)
//             sum += in[(i + u) + (j + v) * pn] * tmpl[u + v * t];
//         out[i + j * n] = sum;
//       }
//   }

// CHECK-LABEL: "gpu.func"
// CHECK-DAG:     %[[TMPL:.*]] = memref.alloca() : memref<9xf32, 3 : i32>
// CHECK-DAG:     %[[IN:.*]] = memref.alloca() : memref<102xf32, 3 : i32>
// CHECK:         %[[TX:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}>
// The template: threads 0..8 load it.
// CHECK:         %[[V:.*]] = memref.load %tmpl[%{{.*}}] : memref<?xf32>
// CHECK-NEXT:    memref.store %[[V]], %[[TMPL]][%[[TX]]]
// CHECK:         "gpu.barrier"() : () -> ()
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// The window: 102 elements, 32 threads, in rounds; element e is (e % 34, e / 34).
// CHECK:           scf.for %[[E:.*]] = %[[TX]] to %{{.*}} step %{{.*}} {
// CHECK:             %[[W:.*]] = memref.load %in[%{{.*}}] : memref<?xf32>
// CHECK-NEXT:        memref.store %[[W]], %[[IN]][%[[E]]] : memref<102xf32, 3 : i32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:      "gpu.barrier"() : () -> ()
// CHECK-NEXT:      scf.if %{{.*}} {
// CHECK:             scf.for %[[VV:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT:          scf.for %[[U:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK:                 memref.load %[[IN]][%{{.*}}] : memref<102xf32, 3 : i32>
// CHECK:                 memref.load %[[TMPL]][%{{.*}}] : memref<9xf32, 3 : i32>
// CHECK:           "gpu.barrier"() : () -> ()
// CHECK-NEXT:    }
// CHECK-NOT:     memref.load %in
// CHECK-NOT:     memref.load %tmpl
builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, memref<?xf32>, memref<?xf32>, i32, i32) -> (), kernel}> ({
    ^bb0(%out: memref<?xf32>, %in: memref<?xf32>, %tmpl: memref<?xf32>, %n: i32, %m: i32):
      %c1 = arith.constant 1 : i32
      %c3 = arith.constant 3 : i32
      %0 = arith.addi %n, %c3 : i32
      %pn = arith.subi %0, %c1 : i32
      %i_ub = arith.index_cast %n : i32 to index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bdx = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %1 = arith.muli %bx, %bdx : index
      %gid_x = arith.addi %1, %tx : index
      %j_ub = arith.index_cast %m : i32 to index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %gdy = "gpu.grid_dim"() <{dimension = #gpu<dim y>}> : () -> index
      scf.for %j_idx = %by to %j_ub step %gdy {
        %j = arith.index_cast %j_idx : index to i32
        %in_bounds = arith.cmpi slt, %gid_x, %i_ub : index
        scf.if %in_bounds {
          %i = arith.index_cast %gid_x : index to i32
          %cst = arith.constant 0.000000e+00 : f32
          %c0 = arith.constant 0 : i32
          %sum = memref.alloca() : memref<f32>
          memref.store %cst, %sum[] : memref<f32>
          scf.for %v = %c0 to %c3 step %c1 : i32 {
            scf.for %u = %c0 to %c3 step %c1 : i32 {
              %sum_1 = memref.load %sum[] : memref<f32>
              %2 = arith.addi %i, %u : i32
              %3 = arith.addi %j, %v : i32
              %4 = arith.muli %3, %pn : i32
              %5 = arith.addi %2, %4 : i32
              %6 = arith.index_cast %5 : i32 to index
              %7 = memref.load %in[%6] : memref<?xf32>
              %8 = arith.muli %v, %c3 : i32
              %9 = arith.addi %u, %8 : i32
              %10 = arith.index_cast %9 : i32 to index
              %11 = memref.load %tmpl[%10] : memref<?xf32>
              %12 = arith.mulf %7, %11 : f32
              %13 = arith.addf %sum_1, %12 : f32
              memref.store %13, %sum[] : memref<f32>
            }
          }
          %sum_2 = memref.load %sum[] : memref<f32>
          %14 = arith.muli %j, %n : i32
          %15 = arith.addi %i, %14 : i32
          %16 = arith.index_cast %15 : i32 to index
          memref.store %sum_2, %out[%16] : memref<?xf32>
        }
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "conv2d_kernel", gpu.known_block_size = array<i32: 32, 1, 1>, gpu.kernel, arg_attrs = [{agpu.name = "out", agpu.ctype = "float"}, {agpu.name = "in", agpu.ctype = "float", agpu.const}, {agpu.name = "tmpl", agpu.ctype = "float", agpu.const}, {agpu.name = "n", agpu.ctype = "int"}, {agpu.name = "m", agpu.ctype = "int"}]} : () -> ()
  }) : () -> ()
}

// -----

// The same with 2D blocks (autogpu-vanilla{block_size=32 block_y=4}): threads (i, j) read
// in[(i+u) + (j+v)*pn], a (32 + 2) x (4 + 2) tile.
// CHECK-LABEL: "gpu.func"
// CHECK:       memref.alloca() : memref<204xf32, 3 : i32>
builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, memref<?xf32>, memref<?xf32>, i32, i32) -> (), kernel}> ({
    ^bb0(%out: memref<?xf32>, %in: memref<?xf32>, %tmpl: memref<?xf32>, %n: i32, %m: i32):
      %c1 = arith.constant 1 : i32
      %c3 = arith.constant 3 : i32
      %0 = arith.addi %n, %c3 : i32
      %pn = arith.subi %0, %c1 : i32
      %i_ub = arith.index_cast %n : i32 to index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bdx = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %1 = arith.muli %bx, %bdx : index
      %gid_x = arith.addi %1, %tx : index
      %j_ub = arith.index_cast %m : i32 to index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %bdy = "gpu.block_dim"() <{dimension = #gpu<dim y>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %2 = arith.muli %by, %bdy : index
      %gid_y = arith.addi %2, %ty : index
      %gdy = "gpu.grid_dim"() <{dimension = #gpu<dim y>}> : () -> index
      %3 = arith.muli %gdy, %bdy : index
      scf.for %j_idx = %gid_y to %j_ub step %3 {
        %j = arith.index_cast %j_idx : index to i32
        %in_bounds = arith.cmpi slt, %gid_x, %i_ub : index
        scf.if %in_bounds {
          %i = arith.index_cast %gid_x : index to i32
          %cst = arith.constant 0.000000e+00 : f32
          %c0 = arith.constant 0 : i32
          %sum = memref.alloca() : memref<f32>
          memref.store %cst, %sum[] : memref<f32>
          scf.for %v = %c0 to %c3 step %c1 : i32 {
            scf.for %u = %c0 to %c3 step %c1 : i32 {
              %sum_1 = memref.load %sum[] : memref<f32>
              %4 = arith.addi %i, %u : i32
              %5 = arith.addi %j, %v : i32
              %6 = arith.muli %5, %pn : i32
              %7 = arith.addi %4, %6 : i32
              %8 = arith.index_cast %7 : i32 to index
              %9 = memref.load %in[%8] : memref<?xf32>
              %10 = arith.muli %v, %c3 : i32
              %11 = arith.addi %u, %10 : i32
              %12 = arith.index_cast %11 : i32 to index
              %13 = memref.load %tmpl[%12] : memref<?xf32>
              %14 = arith.mulf %9, %13 : f32
              %15 = arith.addf %sum_1, %14 : f32
              memref.store %15, %sum[] : memref<f32>
            }
          }
          %sum_2 = memref.load %sum[] : memref<f32>
          %16 = arith.muli %j, %n : i32
          %17 = arith.addi %i, %16 : i32
          %18 = arith.index_cast %17 : i32 to index
          memref.store %sum_2, %out[%18] : memref<?xf32>
        }
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "conv2d_kernel", gpu.known_block_size = array<i32: 32, 4, 1>, gpu.kernel, arg_attrs = [{agpu.name = "out", agpu.ctype = "float"}, {agpu.name = "in", agpu.ctype = "float", agpu.const}, {agpu.name = "tmpl", agpu.ctype = "float", agpu.const}, {agpu.name = "n", agpu.ctype = "int"}, {agpu.name = "m", agpu.ctype = "int"}]} : () -> ()
  }) : () -> ()
}

// -----

// examples/conv2d.c specialised to t = 3 by agpu-specialize: the same tiles.
// Input: autogpu-opt examples/conv2d.c -p 'agpu-specialize{sizes="t=3"},autogpu-vanilla{block_size=32}'
// CHECK-LABEL: "gpu.func"
// CHECK-DAG:   memref.alloca() : memref<9xf32, 3 : i32>
// CHECK-DAG:   memref.alloca() : memref<102xf32, 3 : i32>
builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, memref<?xf32>, memref<?xf32>, i32, i32, i32) -> (), kernel}> ({
    ^bb0(%out: memref<?xf32>, %in: memref<?xf32>, %tmpl: memref<?xf32>, %n: i32, %m: i32, %t: i32):
      %c1 = arith.constant 1 : i32
      %t_1 = arith.constant 3 : i32
      %0 = arith.addi %n, %t_1 : i32
      %pn = arith.subi %0, %c1 : i32
      %i_ub = arith.index_cast %n : i32 to index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bdx = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %1 = arith.muli %bx, %bdx : index
      %gid_x = arith.addi %1, %tx : index
      %j_ub = arith.index_cast %m : i32 to index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %gdy = "gpu.grid_dim"() <{dimension = #gpu<dim y>}> : () -> index
      scf.for %j_idx = %by to %j_ub step %gdy {
        %j = arith.index_cast %j_idx : index to i32
        %in_bounds = arith.cmpi slt, %gid_x, %i_ub : index
        scf.if %in_bounds {
          %i = arith.index_cast %gid_x : index to i32
          %cst = arith.constant 0.000000e+00 : f32
          %c0 = arith.constant 0 : i32
          %sum = memref.alloca() : memref<f32>
          memref.store %cst, %sum[] : memref<f32>
          scf.for %v = %c0 to %t_1 step %c1 : i32 {
            scf.for %u = %c0 to %t_1 step %c1 : i32 {
              %sum_1 = memref.load %sum[] : memref<f32>
              %2 = arith.addi %i, %u : i32
              %3 = arith.addi %j, %v : i32
              %4 = arith.muli %3, %pn : i32
              %5 = arith.addi %2, %4 : i32
              %6 = arith.index_cast %5 : i32 to index
              %7 = memref.load %in[%6] : memref<?xf32>
              %8 = arith.muli %v, %t_1 : i32
              %9 = arith.addi %u, %8 : i32
              %10 = arith.index_cast %9 : i32 to index
              %11 = memref.load %tmpl[%10] : memref<?xf32>
              %12 = arith.mulf %7, %11 : f32
              %13 = arith.addf %sum_1, %12 : f32
              memref.store %13, %sum[] : memref<f32>
            }
          }
          %sum_2 = memref.load %sum[] : memref<f32>
          %14 = arith.muli %j, %n : i32
          %15 = arith.addi %i, %14 : i32
          %16 = arith.index_cast %15 : i32 to index
          memref.store %sum_2, %out[%16] : memref<?xf32>
        }
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "conv2d_kernel", gpu.known_block_size = array<i32: 32, 1, 1>, gpu.kernel, arg_attrs = [{agpu.name = "out", agpu.ctype = "float"}, {agpu.name = "in", agpu.ctype = "float", agpu.const}, {agpu.name = "tmpl", agpu.ctype = "float", agpu.const}, {agpu.name = "n", agpu.ctype = "int"}, {agpu.name = "m", agpu.ctype = "int"}, {agpu.name = "t", agpu.ctype = "int"}]} : () -> ()
  }) : () -> ()
}
