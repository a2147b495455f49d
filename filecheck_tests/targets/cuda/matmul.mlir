// RUN: autogpu-opt %s -t cuda | filecheck %s

// The matmul kernel as convert-agpu-to-gpu sketches it (docs/ir.md): i from the x dimension,
// j from blockIdx.y, a guard, and the serial k loop.

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, memref<?xf32>, memref<?xf32>, i32, i32, i32) -> (), kernel}> ({
    ^bb0(%A: memref<?xf32>, %B: memref<?xf32>, %C: memref<?xf32>, %m: i32, %n: i32, %p: i32):
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bdx = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %t0 = arith.muli %bx, %bdx overflow<nsw> : index
      %t1 = arith.addi %t0, %tx overflow<nsw> : index
      %i = arith.index_cast %t1 : index to i32
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %j = arith.index_cast %by : index to i32
      %in_m = arith.cmpi slt, %i, %m : i32
      %in_n = arith.cmpi slt, %j, %n : i32
      %guard = arith.andi %in_m, %in_n : i1
      scf.if %guard {
        %jm = arith.muli %j, %m overflow<nsw> : i32
        %a_idx = arith.addi %i, %jm overflow<nsw> : i32
        %a_ix = arith.index_cast %a_idx : i32 to index
        %c0 = arith.constant 0 : i32
        %c1 = arith.constant 1 : i32
        scf.for %k = %c0 to %p step %c1 : i32 {
          %a = memref.load %A[%a_ix] : memref<?xf32>
          %km = arith.muli %k, %m overflow<nsw> : i32
          %b_idx = arith.addi %i, %km overflow<nsw> : i32
          %b_ix = arith.index_cast %b_idx : i32 to index
          %b = memref.load %B[%b_ix] : memref<?xf32>
          %jp = arith.muli %j, %p overflow<nsw> : i32
          %c_idx = arith.addi %k, %jp overflow<nsw> : i32
          %c_ix = arith.index_cast %c_idx : i32 to index
          %c = memref.load %C[%c_ix] : memref<?xf32>
          %prod = arith.mulf %b, %c : f32
          %sum = arith.addf %a, %prod : f32
          memref.store %sum, %A[%a_ix] : memref<?xf32>
        }
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "matmul_kernel", gpu.known_block_size = array<i32: 256, 1, 1>,
        arg_attrs = [{agpu.name = "A", agpu.ctype = "float"}, {agpu.name = "B", agpu.ctype = "float", agpu.const},
                     {agpu.name = "C", agpu.ctype = "float", agpu.const}, {agpu.name = "m", agpu.ctype = "int"},
                     {agpu.name = "n", agpu.ctype = "int"}, {agpu.name = "p", agpu.ctype = "int"}]} : () -> ()
  }) : () -> ()
  func.func @matmul(%A: memref<?xf32> {agpu.name = "A", agpu.ctype = "float"},
                    %B: memref<?xf32> {agpu.name = "B", agpu.ctype = "float", agpu.const},
                    %C: memref<?xf32> {agpu.name = "C", agpu.ctype = "float", agpu.const},
                    %m: i32 {agpu.name = "m", agpu.ctype = "int"},
                    %n: i32 {agpu.name = "n", agpu.ctype = "int"},
                    %p: i32 {agpu.name = "p", agpu.ctype = "int"}) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %mi = arith.index_cast %m : i32 to index
    %gx = arith.ceildivsi %mi, %c256 : index
    %ni = arith.index_cast %n : i32 to index
    "gpu.launch_func"(%gx, %ni, %c1, %c256, %c1, %c1, %A, %B, %C, %m, %n, %p) <{kernel = @kernels::@matmul_kernel, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 6, 0>}> : (index, index, index, index, index, index, memref<?xf32>, memref<?xf32>, memref<?xf32>, i32, i32, i32) -> ()
    func.return
  }
}

// The launch description comes first, on one line.
// CHECK:      // autogpu-launch: {"functions": [{"name": "matmul", "params": [
// CHECK-SAME: {"name": "A", "kind": "array", "dtype": "float32", "ctype": "float", "const": false, "restrict": false, "extents": null}
// CHECK-SAME: {"name": "B", "kind": "array", "dtype": "float32", "ctype": "float", "const": true, "restrict": false, "extents": null}
// CHECK-SAME: {"name": "m", "kind": "scalar", "dtype": "int32", "ctype": "int"}
// CHECK-SAME: "launches": [{"kernel": "matmul_kernel", "grid": ["(m + 255) / 256", "n", "1"], "block": ["256", "1", "1"], "args": ["A", "B", "C", "m", "n", "p"], "dynamic_shared_bytes": "0", "static_shared_bytes": 0}]

// Arrays the kernel only reads are `const __restrict__`; A is written and not restrict in C.
// CHECK-LABEL: extern "C" __global__ void __launch_bounds__(256) matmul_kernel(float *A, const float *__restrict__ B, const float *__restrict__ C, int m, int n, int p) {
// CHECK-NEXT:    const int i = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT:    const int j = blockIdx.y;
// CHECK-NEXT:    if (i < m && j < n) {
// CHECK-NEXT:      const int a_idx = i + j * m;
// CHECK-NEXT:      for (int k = 0; k < p; k++) {
// CHECK-NEXT:        A[a_idx] = A[a_idx] + B[i + k * m] * C[k + j * p];
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  }
