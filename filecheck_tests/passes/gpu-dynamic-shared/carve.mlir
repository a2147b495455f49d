// RUN: autogpu-opt %s -p gpu-dynamic-shared | filecheck %s
// RUN: autogpu-opt %s -p gpu-dynamic-shared -t cuda | filecheck %s --check-prefix=CUDA
// RUN: autogpu-opt %s -p 'gpu-dynamic-shared{above=70000}' | filecheck %s --check-prefix=STATIC

// @big's fixed-size shared arrays take 12 + 65536 + 5 bytes, over the 48 KiB of static shared
// memory: each gets an offset in the dynamic buffer aligned to its element (the doubles to 8)
// or to its agpu.align (16), the kernel records their 16-byte-aligned end (65568), where the
// array reduction's run-time section starts, and the launch asks for the section's bytes plus
// 65568. @small (256 bytes) stays static, and its launch keeps no dynamic size.

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf64>, index) -> (), kernel}> ({
    ^bb0(%out: memref<?xf64>, %k: index):
      %flags = memref.alloca() : memref<3xi32, 3 : i32>
      %tile = memref.alloca() {agpu.align = 16 : i64} : memref<8192xf64, 3 : i32>
      %bytes = memref.alloca() : memref<5xi8, 3 : i32>
      %section = memref.alloca(%k) : memref<?xf32, 3 : i32>
      %acc = memref.alloca() : memref<f64>
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %v = memref.load %tile[%tx] : memref<8192xf64, 3 : i32>
      memref.store %v, %out[%tx] : memref<?xf64>
      "gpu.return"() : () -> ()
    }) {sym_name = "big"} : () -> ()
    "gpu.func"() <{function_type = (memref<?xf64>, index) -> (), kernel}> ({
    ^bb0(%out: memref<?xf64>, %k: index):
      %tile = memref.alloca() : memref<64xf32, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "small"} : () -> ()
  }) : () -> ()
  func.func @host(%out: memref<?xf64> {agpu.name = "out", agpu.ctype = "double"},
                  %k: index {agpu.name = "k", agpu.ctype = "long long"}) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %c4 = arith.constant 4 : index
    %kb = arith.muli %k, %c4 : index
    %section = arith.index_cast %kb : index to i32
    "gpu.launch_func"(%c1, %c1, %c1, %c256, %c1, %c1, %section, %out, %k) <{kernel = @kernels::@big, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 2, 0>}> : (index, index, index, index, index, index, i32, memref<?xf64>, index) -> ()
    "gpu.launch_func"(%c1, %c1, %c1, %c256, %c1, %c1, %out, %k) <{kernel = @kernels::@small, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 0>}> : (index, index, index, index, index, index, memref<?xf64>, index) -> ()
    func.return
  }
}

// CHECK-LABEL: ^bb0(%out: memref<?xf64>, %k: index):
// CHECK-NEXT:    %flags = memref.alloca() {agpu.dynamic_shared_offset = 0 : i32} : memref<3xi32, 3 : i32>
// CHECK-NEXT:    %tile = memref.alloca() {agpu.align = 16 : i64, agpu.dynamic_shared_offset = 16 : i32} : memref<8192xf64, 3 : i32>
// CHECK-NEXT:    %bytes = memref.alloca() {agpu.dynamic_shared_offset = 65552 : i32} : memref<5xi8, 3 : i32>
// CHECK-NEXT:    %section = memref.alloca(%k) : memref<?xf32, 3 : i32>
// CHECK-NEXT:    %acc = memref.alloca() : memref<f64>
// CHECK:       }) {sym_name = "big", agpu.dynamic_shared_base = 65568 : i32} : () -> ()
// CHECK:         %tile = memref.alloca() : memref<64xf32, 3 : i32>
// CHECK:       }) {sym_name = "small"} : () -> ()
// CHECK-LABEL: func.func @host
// CHECK:         %[[SECTION:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK-NEXT:    %[[TILES:.*]] = arith.constant 65568 : i32
// CHECK-NEXT:    %[[BYTES:.*]] = arith.addi %[[SECTION]], %[[TILES]] : i32
// CHECK-NEXT:    "gpu.launch_func"(%c1, %c1, %c1, %c256, %c1, %c1, %[[BYTES]], %out, %k) <{kernel = @kernels::@big
// CHECK-NEXT:    "gpu.launch_func"(%c1, %c1, %c1, %c256, %c1, %c1, %out, %k) <{kernel = @kernels::@small

// The cuda target: one extern buffer, each array a pointer at its offset, the section after
// the carved arrays; the launch description passes their bytes, and only @small's array is
// static shared memory.
// CUDA:       "kernel": "big", {{.*}} "dynamic_shared_bytes": "(int)(k * 4 + 65568)", "static_shared_bytes": 0}
// CUDA-SAME:  "kernel": "small", {{.*}} "dynamic_shared_bytes": "0", "static_shared_bytes": 256}
// CUDA-LABEL: __global__ void big(
// CUDA-NEXT:    extern __shared__ __align__(16) unsigned char agpu_dynamic_shared[];
// CUDA-NEXT:    int* const flags = reinterpret_cast<int*>(agpu_dynamic_shared + 0);
// CUDA-NEXT:    double* const tile = reinterpret_cast<double*>(agpu_dynamic_shared + 16);
// CUDA-NEXT:    signed char* const bytes = reinterpret_cast<signed char*>(agpu_dynamic_shared + 65552);
// CUDA-NEXT:    float* const section = reinterpret_cast<float*>(agpu_dynamic_shared + 65568);
// CUDA:         out[tx] = tile[tx];
// CUDA-LABEL: __global__ void small(
// CUDA-NEXT:    __shared__ float tile[64];

// Within `above`, nothing changes.
// STATIC-NOT:  agpu.dynamic_shared
// STATIC:      "gpu.launch_func"(%c1, %c1, %c1, %c256, %c1, %c1, %section, %out, %k)
// STATIC-NOT:  agpu.dynamic_shared
