// RUN: autogpu-opt %examples/saxpy.c -p autogpu-vanilla | filecheck %s --check-prefix=SAXPY
// RUN: autogpu-opt %examples/conv2d.c -p autogpu-vanilla | filecheck %s --check-prefix=CONV
// RUN: autogpu-opt %examples/stencil2d.c -p autogpu-vanilla | filecheck %s --check-prefix=STENCIL
// RUN: autogpu-opt %examples/dot.c -p 'autogpu-vanilla{block_size=128}' | filecheck %s --check-prefix=DOT
// RUN: not autogpu-opt %examples/dot.c -p 'autogpu-vanilla{block_size=4096}' 2>&1 | filecheck %s --check-prefix=INVALID

// Every example lowers to kernels and launches; what each one adds to matmul's shape.

// SAXPY: sym_name = "saxpy_kernel", gpu.known_block_size = array<i32: 256, 1, 1>
// SAXPY-LABEL: func.func @saxpy(
// SAXPY: "gpu.launch_func"({{.*}}) <{kernel = @kernels::@saxpy_kernel

// conv2d: pn = n + t - 1 recomputed in the kernel
// CONV: ^{{.*}}(%{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<?xf32>, %[[N:[^:]*]]: i32, %[[M:[^:]*]]: i32, %[[T:[^:]*]]: i32):
// CONV: %[[NT:.*]] = arith.addi %[[N]], %[[T]] overflow<nsw> : i32
// CONV: %[[PN:.*]] = arith.subi %[[NT]], %{{.*}} : i32
// CONV: arith.muli %{{.*}}, %[[PN]] overflow<nsw> : i32
// CONV: sym_name = "conv2d_kernel"

// stencil2d: bounds 1 .. n-1 and 1 .. m-1; j (inner) on threads starts at 1
// STENCIL: %[[ONE:.*]] = arith.constant 1 : index
// STENCIL: %[[GID:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// STENCIL-NEXT: %[[J:.*]] = arith.addi %[[GID]], %[[ONE]] overflow<nsw> : index
// STENCIL: %[[BY:.*]] = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
// STENCIL-NEXT: %[[I0:.*]] = arith.addi %[[BY]], %[[ONE]] overflow<nsw> : index
// STENCIL: scf.for %{{.*}} = %[[I0]] to %{{.*}} step %{{.*}} {
// STENCIL-LABEL: func.func @jacobi2d(
// STENCIL: "gpu.launch_func"

// dot: s in device memory; s = 0, the reduction (one value per warp of the 128 threads in
// shared memory), result[0] = s: three launches in order
// DOT: "memref.global"() <{sym_name = "dot_s", type = memref<f32>, initial_value, sym_visibility = "private"}>
// DOT: %[[S0:.*]] = memref.get_global @dot_s : memref<f32>
// DOT-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// DOT-NEXT: memref.store %[[ZERO]], %[[S0]][] : memref<f32>
// DOT: sym_name = "dot_kernel0", gpu.known_block_size = array<i32: 1, 1, 1>
// DOT: %[[S:.*]] = memref.get_global @dot_s : memref<f32>
// DOT-NEXT: %[[PRIV:.*]] = memref.alloca() : memref<f32>
// DOT: %[[SHARED:.*]] = memref.alloca() : memref<4xf32, 3 : i32>
// DOT: scf.if
// DOT: memref.store %{{.*}}, %[[PRIV]][] : memref<f32>
// DOT: "agpu.shuffle_down"
// DOT: memref.store %{{.*}}, %[[SHARED]][%{{.*}}] : memref<4xf32, 3 : i32>
// DOT: "gpu.barrier"
// DOT: "memref.atomic_rmw"(%{{.*}}, %[[S]]) <{kind = 0 : i64}> : (f32, memref<f32>) -> f32
// DOT: sym_name = "dot_kernel1", gpu.known_block_size = array<i32: 128, 1, 1>
// DOT: memref.get_global @dot_s : memref<f32>
// DOT: sym_name = "dot_kernel2", gpu.known_block_size = array<i32: 1, 1, 1>
// DOT-LABEL: func.func @dot(
// DOT: kernel = @kernels::@dot_kernel0
// DOT: kernel = @kernels::@dot_kernel1
// DOT: kernel = @kernels::@dot_kernel2

// INVALID: error: invalid block of 4096x1x1 = 4096 threads: CUDA allows at most 1024 threads per block
