// RUN: autogpu-opt %s -p 'gpu-cache-shared{assume_no_alias=true remarks=true}' 2>&1 | filecheck %s
// RUN: autogpu-opt %s -p 'gpu-cache-shared{assume_no_alias=true shared_budget=100 remarks=true}' 2>&1 | filecheck %s --check-prefix=BUDGET
// RUN: autogpu-opt %s -p 'gpu-cache-shared{remarks=true}' 2>&1 | filecheck %s --check-prefix=ALIAS

// Where the pass must not fire, and the remarks that say why. Each function's kernel keeps its
// global loads and gets no shared memory.
// Input: the C functions below through autogpu-opt -p 'autogpu-vanilla{block_size=32}'
// (host functions left out).

// CHECK-DAG: remark: gpu-cache-shared: @pairs_kernel: 'in' not cached: no reuse: the block reads each element of the tile only once
// CHECK-DAG: remark: gpu-cache-shared: @prefix_kernel: 'a' not cached: the kernel writes it
// CHECK-DAG: remark: gpu-cache-shared: @window_kernel: 'in' not cached: the trip count of the loop over 'u' is not a compile-time constant (specialise the sizes, or give max_extent)
// CHECK-DAG: remark: gpu-cache-shared: @window_kernel: 'w' cached (thread-invariant) in __shared__ w_sh[32]
// CHECK-DAG: remark: gpu-cache-shared: @gather_kernel: 'x' not cached: the index depends on values not known before the tile
// CHECK-DAG: remark: gpu-cache-shared: @gather_kernel: 'idx' cached (thread-invariant) in __shared__ idx_sh[32]
// CHECK-DAG: remark: gpu-cache-shared: @scale_kernel: 'w' cached (thread-invariant) in __shared__ w_sh[32]
// CHECK-NOT: remark

// (A kernel's name follows its body.)
// CHECK-NOT:     memref.alloca() : memref<{{.*}}, 3 : i32>
// CHECK:         memref.load %in
// CHECK:         memref.load %in
// CHECK:         sym_name = "pairs_kernel"
// CHECK-NOT:     memref.alloca() : memref<{{.*}}, 3 : i32>
// CHECK:         sym_name = "prefix_kernel"
// CHECK:         memref.alloca() : memref<32xf32, 3 : i32>
// CHECK-NOT:     memref.alloca() : memref<{{.*}}, 3 : i32>
// CHECK:         memref.load %in
// CHECK:         sym_name = "window_kernel"
// CHECK:         memref.alloca() : memref<32xi32, 3 : i32>
// CHECK-NOT:     memref.alloca() : memref<{{.*}}, 3 : i32>
// CHECK:         memref.load %x
// CHECK:         sym_name = "gather_kernel"

// Threads read in[2i] and in[2i + 1]: no element is shared (a coefficient of 2 on the thread
// index, which the tile model cannot fold).
//   void pairs(const float *in, float *restrict out, int n) {
//   #pragma omp parallel for
//     for (int i = 0; i < n; i++)
//       out[i] = in[2 * i] + in[2 * i + 1];
//   }

// a[k] is read by every thread, but the loop also writes a (after the first t elements).
//   void prefix(float *a, float *restrict b, int n, int t) {
//   #pragma omp parallel for
//     for (int i = 0; i < n; i++) {
//       float s = 0.0f;
//       for (int k = 0; k < t; k++)
//         s += a[k];
//       a[t + i] = s;
//       b[i] = s;
//     }
//   }

// A 1D window of runtime width t: the halo tile would need t elements more than the block; t
// is unknown, so `in` is not cached (w, the same for all threads, is, strip-mined).
//   void window(const float *in, const float *w, float *restrict out, int n, int t) {
//   #pragma omp parallel for
//     for (int i = 0; i < n; i++) {
//       float s = 0.0f;
//       for (int u = 0; u < t; u++)
//         s += in[i + u] * w[u];
//       out[i] = s;
//     }
//   }

// An index read from memory: not known before the loop runs (the indices themselves, the same
// for all threads, are cached).
//   void gather(const float *x, const int *idx, float *restrict y, int n, int t) {
//   #pragma omp parallel for
//     for (int i = 0; i < n; i++) {
//       float s = 0.0f;
//       for (int k = 0; k < t; k++)
//         s += x[idx[k]];
//       y[i] = s;
//     }
//   }

// Without restrict, `out` may point into `w`.
//   void scale(const float *w, float *out, int n, int t) {
//   #pragma omp parallel for
//     for (int i = 0; i < n; i++) {
//       float s = 0.0f;
//       for (int k = 0; k < t; k++)
//         s += w[k] * (float)i;
//       out[i] = s;
//     }
//   }

// With 100 bytes of shared memory, not even one tile of w (32 floats) fits.
// BUDGET-DAG: remark: gpu-cache-shared: @window_kernel: 'w' not cached: a tile of 32 elements needs 128 bytes of shared memory in all, over the budget of 100
// BUDGET-NOT: memref.alloca() : memref<{{.*}}, 3 : i32>

// ALIAS-DAG: remark: gpu-cache-shared: @scale_kernel: 'w' not cached: the kernel writes 'out', which may alias it (mark the pointers restrict, or set assume_no_alias)
// ALIAS-DAG: remark: gpu-cache-shared: @window_kernel: 'w' cached

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, memref<?xf32>, i32) -> (), kernel}> ({
    ^bb0(%in: memref<?xf32>, %out: memref<?xf32>, %n: i32):
      %i_ub = arith.index_cast %n : i32 to index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bdx = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %0 = arith.muli %bx, %bdx : index
      %gid_x = arith.addi %0, %tx : index
      %in_bounds = arith.cmpi slt, %gid_x, %i_ub : index
      scf.if %in_bounds {
        %i = arith.index_cast %gid_x : index to i32
        %c2 = arith.constant 2 : i32
        %c1 = arith.constant 1 : i32
        %1 = arith.muli %i, %c2 : i32
        %2 = arith.index_cast %1 : i32 to index
        %3 = memref.load %in[%2] : memref<?xf32>
        %4 = arith.addi %1, %c1 : i32
        %5 = arith.index_cast %4 : i32 to index
        %6 = memref.load %in[%5] : memref<?xf32>
        %7 = arith.addf %3, %6 : f32
        %8 = arith.index_cast %i : i32 to index
        memref.store %7, %out[%8] : memref<?xf32>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "pairs_kernel", gpu.known_block_size = array<i32: 32, 1, 1>, gpu.kernel, arg_attrs = [{agpu.name = "in", agpu.ctype = "float", agpu.const}, {agpu.name = "out", agpu.ctype = "float", agpu.restrict}, {agpu.name = "n", agpu.ctype = "int"}]} : () -> ()
    "gpu.func"() <{function_type = (memref<?xf32>, memref<?xf32>, i32, i32) -> (), kernel}> ({
    ^bb0(%a: memref<?xf32>, %b: memref<?xf32>, %n: i32, %t: i32):
      %i_ub = arith.index_cast %n : i32 to index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bdx = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %0 = arith.muli %bx, %bdx : index
      %gid_x = arith.addi %0, %tx : index
      %in_bounds = arith.cmpi slt, %gid_x, %i_ub : index
      scf.if %in_bounds {
        %i = arith.index_cast %gid_x : index to i32
        %cst = arith.constant 0.000000e+00 : f32
        %c0 = arith.constant 0 : i32
        %c1 = arith.constant 1 : i32
        %s = memref.alloca() : memref<f32>
        memref.store %cst, %s[] : memref<f32>
        scf.for %k = %c0 to %t step %c1 : i32 {
          %s_1 = memref.load %s[] : memref<f32>
          %1 = arith.index_cast %k : i32 to index
          %2 = memref.load %a[%1] : memref<?xf32>
          %3 = arith.addf %s_1, %2 : f32
          memref.store %3, %s[] : memref<f32>
        }
        %s_2 = memref.load %s[] : memref<f32>
        %4 = arith.addi %t, %i : i32
        %5 = arith.index_cast %4 : i32 to index
        memref.store %s_2, %a[%5] : memref<?xf32>
        %s_3 = memref.load %s[] : memref<f32>
        %6 = arith.index_cast %i : i32 to index
        memref.store %s_3, %b[%6] : memref<?xf32>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "prefix_kernel", gpu.known_block_size = array<i32: 32, 1, 1>, gpu.kernel, arg_attrs = [{agpu.name = "a", agpu.ctype = "float"}, {agpu.name = "b", agpu.ctype = "float", agpu.restrict}, {agpu.name = "n", agpu.ctype = "int"}, {agpu.name = "t", agpu.ctype = "int"}]} : () -> ()
    "gpu.func"() <{function_type = (memref<?xf32>, memref<?xf32>, memref<?xf32>, i32, i32) -> (), kernel}> ({
    ^bb0(%in: memref<?xf32>, %w: memref<?xf32>, %out: memref<?xf32>, %n: i32, %t: i32):
      %i_ub = arith.index_cast %n : i32 to index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bdx = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %0 = arith.muli %bx, %bdx : index
      %gid_x = arith.addi %0, %tx : index
      %in_bounds = arith.cmpi slt, %gid_x, %i_ub : index
      scf.if %in_bounds {
        %i = arith.index_cast %gid_x : index to i32
        %cst = arith.constant 0.000000e+00 : f32
        %c0 = arith.constant 0 : i32
        %c1 = arith.constant 1 : i32
        %s = memref.alloca() : memref<f32>
        memref.store %cst, %s[] : memref<f32>
        scf.for %u = %c0 to %t step %c1 : i32 {
          %s_1 = memref.load %s[] : memref<f32>
          %1 = arith.addi %i, %u : i32
          %2 = arith.index_cast %1 : i32 to index
          %3 = memref.load %in[%2] : memref<?xf32>
          %4 = arith.index_cast %u : i32 to index
          %5 = memref.load %w[%4] : memref<?xf32>
          %6 = arith.mulf %3, %5 : f32
          %7 = arith.addf %s_1, %6 : f32
          memref.store %7, %s[] : memref<f32>
        }
        %s_2 = memref.load %s[] : memref<f32>
        %8 = arith.index_cast %i : i32 to index
        memref.store %s_2, %out[%8] : memref<?xf32>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "window_kernel", gpu.known_block_size = array<i32: 32, 1, 1>, gpu.kernel, arg_attrs = [{agpu.name = "in", agpu.ctype = "float", agpu.const}, {agpu.name = "w", agpu.ctype = "float", agpu.const}, {agpu.name = "out", agpu.ctype = "float", agpu.restrict}, {agpu.name = "n", agpu.ctype = "int"}, {agpu.name = "t", agpu.ctype = "int"}]} : () -> ()
    "gpu.func"() <{function_type = (memref<?xf32>, memref<?xi32>, memref<?xf32>, i32, i32) -> (), kernel}> ({
    ^bb0(%x: memref<?xf32>, %idx: memref<?xi32>, %y: memref<?xf32>, %n: i32, %t: i32):
      %i_ub = arith.index_cast %n : i32 to index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bdx = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %0 = arith.muli %bx, %bdx : index
      %gid_x = arith.addi %0, %tx : index
      %in_bounds = arith.cmpi slt, %gid_x, %i_ub : index
      scf.if %in_bounds {
        %i = arith.index_cast %gid_x : index to i32
        %cst = arith.constant 0.000000e+00 : f32
        %c0 = arith.constant 0 : i32
        %c1 = arith.constant 1 : i32
        %s = memref.alloca() : memref<f32>
        memref.store %cst, %s[] : memref<f32>
        scf.for %k = %c0 to %t step %c1 : i32 {
          %s_1 = memref.load %s[] : memref<f32>
          %1 = arith.index_cast %k : i32 to index
          %2 = memref.load %idx[%1] : memref<?xi32>
          %3 = arith.index_cast %2 : i32 to index
          %4 = memref.load %x[%3] : memref<?xf32>
          %5 = arith.addf %s_1, %4 : f32
          memref.store %5, %s[] : memref<f32>
        }
        %s_2 = memref.load %s[] : memref<f32>
        %6 = arith.index_cast %i : i32 to index
        memref.store %s_2, %y[%6] : memref<?xf32>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "gather_kernel", gpu.known_block_size = array<i32: 32, 1, 1>, gpu.kernel, arg_attrs = [{agpu.name = "x", agpu.ctype = "float", agpu.const}, {agpu.name = "idx", agpu.ctype = "int", agpu.const}, {agpu.name = "y", agpu.ctype = "float", agpu.restrict}, {agpu.name = "n", agpu.ctype = "int"}, {agpu.name = "t", agpu.ctype = "int"}]} : () -> ()
    "gpu.func"() <{function_type = (memref<?xf32>, memref<?xf32>, i32, i32) -> (), kernel}> ({
    ^bb0(%w: memref<?xf32>, %out: memref<?xf32>, %n: i32, %t: i32):
      %i_ub = arith.index_cast %n : i32 to index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bdx = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %0 = arith.muli %bx, %bdx : index
      %gid_x = arith.addi %0, %tx : index
      %in_bounds = arith.cmpi slt, %gid_x, %i_ub : index
      scf.if %in_bounds {
        %i = arith.index_cast %gid_x : index to i32
        %cst = arith.constant 0.000000e+00 : f32
        %c0 = arith.constant 0 : i32
        %c1 = arith.constant 1 : i32
        %s = memref.alloca() : memref<f32>
        memref.store %cst, %s[] : memref<f32>
        scf.for %k = %c0 to %t step %c1 : i32 {
          %s_1 = memref.load %s[] : memref<f32>
          %1 = arith.index_cast %k : i32 to index
          %2 = memref.load %w[%1] : memref<?xf32>
          %3 = arith.sitofp %i : i32 to f32
          %4 = arith.mulf %2, %3 : f32
          %5 = arith.addf %s_1, %4 : f32
          memref.store %5, %s[] : memref<f32>
        }
        %s_2 = memref.load %s[] : memref<f32>
        %6 = arith.index_cast %i : i32 to index
        memref.store %s_2, %out[%6] : memref<?xf32>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "scale_kernel", gpu.known_block_size = array<i32: 32, 1, 1>, gpu.kernel, arg_attrs = [{agpu.name = "w", agpu.ctype = "float", agpu.const}, {agpu.name = "out", agpu.ctype = "float"}, {agpu.name = "n", agpu.ctype = "int"}, {agpu.name = "t", agpu.ctype = "int"}]} : () -> ()
  }) : () -> ()
}
