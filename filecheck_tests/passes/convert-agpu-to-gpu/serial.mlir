// RUN: autogpu-opt %s -p convert-agpu-to-gpu | filecheck %s

// Serial code that touches memory runs in single-thread kernels (<<<1,1>>>) in program order.
// `first` (a load before the nest) is used by the nest: the first kernel stores it to a device
// global that the second reads. `k` is only used inside the loop, assigned before read: a
// private local of each thread. `i_out` is only ever assigned: dropped, with its store (no
// launch for it).

func.func @serial(%x: memref<?xf32> {agpu.name = "x", agpu.ctype = "float"},
                  %n: i32 {agpu.name = "n", agpu.ctype = "int"}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0 : index
  %first = memref.load %x[%z] : memref<?xf32>
  %k = memref.alloca() : memref<i32>
  %i_out = memref.alloca() : memref<i32>
  %one = arith.constant 1.0 : f32
  memref.store %one, %x[%z] : memref<?xf32>
  agpu.parallel_for %i = %c1 to %n step %c1 : i32 {
    %ii = arith.index_cast %i : i32 to index
    %v = memref.load %x[%ii] : memref<?xf32>
    %d = arith.subf %v, %first : f32
    memref.store %c0, %k[] : memref<i32>
    %kk = memref.load %k[] : memref<i32>
    %kf = arith.sitofp %kk : i32 to f32
    %e = arith.addf %d, %kf : f32
    memref.store %e, %x[%ii] : memref<?xf32>
  }
  memref.store %n, %i_out[] : memref<i32>
  func.return
}

// CHECK: "gpu.module"() <{sym_name = "kernels"}> ({
// CHECK-NEXT: "memref.global"() <{sym_name = "serial_first", type = memref<f32>, initial_value, sym_visibility = "private"}> : () -> ()

// kernel 0: the serial code before the nest, then the spill of `first`
// CHECK-NEXT: "gpu.func"()
// CHECK-NEXT: ^{{.*}}(%[[X0:[^:]*]]: memref<?xf32>, %{{[^:]*}}: i32):
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[FIRST:.*]] = memref.load %[[X0]][%[[Z]]] : memref<?xf32>
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: memref.store %[[ONE]], %[[X0]][%[[Z]]] : memref<?xf32>
// CHECK-NEXT: %[[G0:.*]] = memref.get_global @serial_first : memref<f32>
// CHECK-NEXT: memref.store %[[FIRST]], %[[G0]][] : memref<f32>
// CHECK-NEXT: "gpu.return"() : () -> ()
// CHECK-NEXT: }) {sym_name = "serial_kernel0", gpu.known_block_size = array<i32: 1, 1, 1>, gpu.kernel

// kernel 1: the nest reads `first` back and gives each thread its own `k`
// CHECK-NEXT: "gpu.func"()
// CHECK-NEXT: ^{{.*}}(%[[X1:[^:]*]]: memref<?xf32>, %{{[^:]*}}: i32):
// CHECK-NEXT: %[[G1:.*]] = memref.get_global @serial_first : memref<f32>
// CHECK-NEXT: %[[FIRST1:.*]] = memref.load %[[G1]][] : memref<f32>
// CHECK: %[[K:.*]] = memref.alloca() : memref<i32>
// CHECK: scf.if
// CHECK: arith.subf %{{.*}}, %[[FIRST1]] : f32
// CHECK-NEXT: memref.store %{{.*}}, %[[K]][] : memref<i32>
// CHECK-NEXT: memref.load %[[K]][] : memref<i32>
// CHECK: }) {sym_name = "serial_kernel1", gpu.known_block_size = array<i32: 256, 1, 1>, gpu.kernel
// CHECK-NOT: "gpu.func"

// CHECK-LABEL: func.func @serial(
// CHECK: %[[ONE_I:.*]] = arith.constant 1 : index
// CHECK-NEXT: "gpu.launch_func"(%[[ONE_I]], %[[ONE_I]], %[[ONE_I]], %[[ONE_I]], %[[ONE_I]], %[[ONE_I]], {{.*}}) <{kernel = @kernels::@serial_kernel0
// grid.x = max(ceildiv(n - 1, 256), 1)
// CHECK-NEXT: %[[NI:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK-NEXT: %[[COUNT:.*]] = arith.subi %[[NI]], %[[ONE_I]] : index
// CHECK: "gpu.launch_func"({{.*}}) <{kernel = @kernels::@serial_kernel1
// CHECK-NEXT: func.return
