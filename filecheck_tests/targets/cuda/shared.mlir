// RUN: autogpu-opt %s -t cuda | filecheck %s

// Workgroup memory (NVVM address space 3, what convert-agpu-to-gpu uses) is `__shared__`;
// other allocas are local variables and arrays; gpu.barrier is __syncthreads(). The kernel is
// marked with the `gpu.kernel` attribute only (as docs/ir.md writes it), not the property.

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, memref<?xf32>) -> ()}> ({
    ^bb0(%in: memref<?xf32>, %out: memref<?xf32>):
      %tile = memref.alloca() : memref<256xf32, 3 : i32>
      %grid = memref.alloca() : memref<16x16xf32, 3 : i32>
      %local = memref.alloca() : memref<4xf32>
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %tz = "gpu.thread_id"() <{dimension = #gpu<dim z>}> : () -> index
      %gx = "gpu.global_id"() <{dimension = #gpu<dim x>}> : () -> index
      %gdx = "gpu.grid_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %bdz = "gpu.block_dim"() <{dimension = #gpu<dim z>}> : () -> index
      %bz = "gpu.block_id"() <{dimension = #gpu<dim z>}> : () -> index
      %v = memref.load %in[%gx] : memref<?xf32>
      memref.store %v, %tile[%tx] : memref<256xf32, 3 : i32>
      memref.store %v, %grid[%ty, %tz] : memref<16x16xf32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %c0 = arith.constant 0 : index
      %c255 = arith.constant 255 : index
      %mirror = arith.subi %c255, %tx overflow<nsw> : index
      %w = memref.load %tile[%mirror] : memref<256xf32, 3 : i32>
      %g = memref.load %grid[%tz, %ty] : memref<16x16xf32, 3 : i32>
      memref.store %w, %local[%c0] : memref<4xf32>
      %l = memref.load %local[%c0] : memref<4xf32>
      %s = arith.addf %l, %g : f32
      %n1 = arith.muli %gdx, %bdz overflow<nsw> : index
      %n2 = arith.addi %n1, %bz overflow<nsw> : index
      memref.store %s, %out[%n2] : memref<?xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "reverse", gpu.kernel, gpu.known_block_size = array<i32: 256, 1, 1>} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: extern "C" __global__ void __launch_bounds__(256) reverse(const float *__restrict__ in, float *out) {
// CHECK-NEXT:    __shared__ float tile[256];
// CHECK-NEXT:    __shared__ float grid[16][16];
// CHECK-NEXT:    float local[4];
// CHECK-NEXT:    const long long tx = threadIdx.x;
// CHECK-NEXT:    const long long ty = threadIdx.y;
// CHECK-NEXT:    const long long tz = threadIdx.z;
// CHECK-NEXT:    const float v = in[(long long)blockIdx.x * blockDim.x + threadIdx.x];
// CHECK-NEXT:    tile[tx] = v;
// CHECK-NEXT:    grid[ty][tz] = v;
// CHECK-NEXT:    __syncthreads();
// The load of grid cannot move past the store to local: it gets a name.
// CHECK-NEXT:    const float g = grid[tz][ty];
// CHECK-NEXT:    local[0] = tile[255 - tx];
// CHECK-NEXT:    out[(long long)gridDim.x * blockDim.z + blockIdx.z] = local[0] + g;
// CHECK-NEXT:  }
