// RUN: autogpu-opt %s --split-input-file -p convert-agpu-to-gpu | filecheck %s
// RUN: autogpu-opt %s --split-input-file -p convert-agpu-to-gpu 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK

// A table (every element a constant stored before any read, never written again: what a
// file-scope `static const float W[3] = {...};` becomes) is a constant global with its values
// as the initializer: no kernel initialises it, and the one kernel reads it (get_global).

func.func @table(%n: i32 {agpu.name = "n", agpu.ctype = "int"},
                 %y: memref<?xf32> {agpu.name = "y", agpu.ctype = "float"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = arith.constant 0.25 : f32
  %b = arith.constant 0.5 : f32
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  %three = arith.constant 3 : i32
  %W = memref.alloca() : memref<3xf32>
  memref.store %a, %W[%c0] : memref<3xf32>
  memref.store %b, %W[%c1] : memref<3xf32>
  memref.store %a, %W[%c2] : memref<3xf32>
  agpu.parallel_for %i = %zero to %n step %one : i32 {
    %k = arith.remsi %i, %three : i32
    %kk = arith.index_cast %k : i32 to index
    %w = memref.load %W[%kk] : memref<3xf32>
    %ii = arith.index_cast %i : i32 to index
    memref.store %w, %y[%ii] : memref<?xf32>
  }
  func.return
}

// CHECK: "gpu.module"() <{sym_name = "kernels"}> ({
// CHECK-NEXT: "memref.global"() <{sym_name = "table_W", type = memref<3xf32>, initial_value = dense<[2.500000e-01, 5.000000e-01, 2.500000e-01]> : tensor<3xf32>, sym_visibility = "private", constant}> : () -> ()
// CHECK-NEXT: "gpu.func"()
// CHECK: %[[W:.*]] = memref.get_global @table_W : memref<3xf32>
// CHECK: memref.load %[[W]][%{{.*}}] : memref<3xf32>
// CHECK: sym_name = "table_kernel"
// CHECK-NOT: "gpu.func"()
// CHECK-LABEL: func.func @table(
// CHECK-NOT: memref.store
// CHECK-NOT: "gpu.launch_func"({{.*}}) <{kernel = @kernels::@table_kernel0
// CHECK: "gpu.launch_func"({{.*}}) <{kernel = @kernels::@table_kernel,

// -----

// Not tables: an element computed at run time (`n`), and an array written again after its
// initializer. Both stay `__device__` globals that a serial kernel initialises.

func.func @not_tables(%n: i32 {agpu.name = "n", agpu.ctype = "int"},
                      %y: memref<?xi32> {agpu.name = "y", agpu.ctype = "int"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  %R = memref.alloca() : memref<2xi32>
  memref.store %one, %R[%c0] : memref<2xi32>
  memref.store %n, %R[%c1] : memref<2xi32>
  %A = memref.alloca() : memref<2xi32>
  memref.store %one, %A[%c0] : memref<2xi32>
  memref.store %one, %A[%c1] : memref<2xi32>
  memref.store %zero, %A[%c0] : memref<2xi32>
  agpu.parallel_for %i = %zero to %n step %one : i32 {
    %r = memref.load %R[%c1] : memref<2xi32>
    %first = memref.load %A[%c0] : memref<2xi32>
    %s = arith.addi %r, %first : i32
    %ii = arith.index_cast %i : i32 to index
    memref.store %s, %y[%ii] : memref<?xi32>
  }
  memref.store %n, %A[%c1] : memref<2xi32>
  func.return
}

// CHECK: "memref.global"() <{sym_name = "not_tables_R", type = memref<2xi32>, initial_value, sym_visibility = "private"}> : () -> ()
// CHECK-NEXT: "memref.global"() <{sym_name = "not_tables_A", type = memref<2xi32>, initial_value, sym_visibility = "private"}> : () -> ()
// CHECK-NEXT: "gpu.func"()

// -----

// The module's tables share the 64 KiB constant bank: the first (48 KiB) fits, the second
// (32 KiB) does not and is an initialised device global, with a remark at its declaration.

func.func @banks(%y: memref<?xf32> {agpu.name = "y", agpu.ctype = "float"}) {
  %c0 = arith.constant 0 : index
  %x = arith.constant 2.0 : f32
  %big = memref.alloca() : memref<12288xf32>
  memref.store %x, %big[%c0] : memref<12288xf32>
  %r = memref.load %big[%c0] : memref<12288xf32>
  memref.store %r, %y[%c0] : memref<?xf32>
  func.return
}
func.func @over(%y: memref<?xf32> {agpu.name = "y", agpu.ctype = "float"}) {
  %c0 = arith.constant 0 : index
  %x = arith.constant 2.0 : f32
  %more = memref.alloca() : memref<8192xf32>
  memref.store %x, %more[%c0] : memref<8192xf32>
  %r = memref.load %more[%c0] : memref<8192xf32>
  memref.store %r, %y[%c0] : memref<?xf32>
  func.return
}

// CHECK: "memref.global"() <{sym_name = "banks_big", type = memref<12288xf32>, initial_value = dense<"0x00000040{{0*}}"> : tensor<12288xf32>, sym_visibility = "private", constant}>
// CHECK: "memref.global"() <{sym_name = "over_more", type = memref<8192xf32>, initial_value = dense<"0x00000040{{0*}}"> : tensor<8192xf32>, sym_visibility = "private"}>
// REMARK: tables.mlir:[[# @LINE - 9]]:3: remark: convert-agpu-to-gpu: table 'more' (32768 bytes) is a __device__ array: the module's tables exceed the 65536 bytes of __constant__ memory
