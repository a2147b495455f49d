// RUN: autogpu-opt %s -p 'gpu-cache-shared{assume_no_alias=true halo=false}' | filecheck %s --check-prefix=NOHALO
// RUN: autogpu-opt %s -p 'gpu-cache-shared{assume_no_alias=true arrays=in}' | filecheck %s --check-prefix=ARRAYS
// RUN: autogpu-opt %s -p 'gpu-cache-shared{assume_no_alias=true max_extent=5}' | filecheck %s --check-prefix=MAX

// Options on examples/conv2d.c (t unknown).
// Input: autogpu-opt examples/conv2d.c -p 'autogpu-vanilla{block_size=32}' (host function left out)

// halo=false on the convolution (t unknown): the template is cached, strip-mined along u.
// NOHALO-LABEL: "gpu.func"
// NOHALO:     memref.alloca() : memref<32xf32, 3 : i32>
// NOHALO-NOT: memref.alloca() : memref<{{.*}}, 3 : i32>

// arrays=in: only `in` may be cached, and its window needs a bound on t: nothing happens.
// ARRAYS-LABEL: "gpu.func"
// ARRAYS-NOT: memref.alloca() : memref<{{.*}}, 3 : i32>

// max_extent=5: the window is sized for t <= 5, (32 + 4) x 5, the template 5 x 5; the code
// checks t <= 5 and otherwise runs the original loops.
// MAX-LABEL: "gpu.func"
// MAX-DAG:   %[[TMPL:.*]] = memref.alloca() : memref<25xf32, 3 : i32>
// MAX-DAG:   %[[IN:.*]] = memref.alloca() : memref<180xf32, 3 : i32>
// MAX:       %[[T:.*]] = arith.maxsi %{{.*}}, %{{.*}} : index
// MAX:       %[[FITS:.*]] = arith.cmpi sle, %[[T]], %{{.*}} : index
// MAX:       scf.if %[[FITS]] {
// MAX:         memref.store %{{.*}}, %[[TMPL]]
// MAX:         "gpu.barrier"
// MAX:         scf.for
// MAX:           memref.store %{{.*}}, %[[IN]]
// MAX:           "gpu.barrier"
// MAX:           memref.load %[[IN]]
// MAX:           memref.load %[[TMPL]]
// MAX:           "gpu.barrier"
// MAX:       } else {
// MAX-NOT:     "gpu.barrier"
// MAX:         memref.load %in
// MAX:         memref.load %tmpl
// MAX:       }

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, memref<?xf32>, memref<?xf32>, i32, i32, i32) -> (), kernel}> ({
    ^bb0(%out: memref<?xf32>, %in: memref<?xf32>, %tmpl: memref<?xf32>, %n: i32, %m: i32, %t: i32):
      %c1 = arith.constant 1 : i32
      %0 = arith.addi %n, %t : i32
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
          scf.for %v = %c0 to %t step %c1 : i32 {
            scf.for %u = %c0 to %t step %c1 : i32 {
              %sum_1 = memref.load %sum[] : memref<f32>
              %2 = arith.addi %i, %u : i32
              %3 = arith.addi %j, %v : i32
              %4 = arith.muli %3, %pn : i32
              %5 = arith.addi %2, %4 : i32
              %6 = arith.index_cast %5 : i32 to index
              %7 = memref.load %in[%6] : memref<?xf32>
              %8 = arith.muli %v, %t : i32
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
