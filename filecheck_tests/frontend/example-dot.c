// RUN: autogpu-opt %examples/dot.c | filecheck %s
// RUN: autogpu-opt %examples/dot.c | autogpu-opt | filecheck %s

// CHECK-LABEL: func.func @dot(
// CHECK: %s = memref.alloca() : memref<f32>
// CHECK-NEXT: memref.store %cst, %s[] : memref<f32>
// CHECK-NEXT: agpu.parallel_for %i = %c0 to %n step %c1 : i32 reduction(add %s : memref<f32>) {
// CHECK-NEXT: %[[S:.*]] = memref.load %s[] : memref<f32>
// CHECK-NEXT: %[[X:.*]] = arith.index_cast %i : i32 to index
// CHECK-NEXT: %[[XI:.*]] = memref.load %x[%[[X]]] : memref<?xf32>
// CHECK-NEXT: %[[YI:.*]] = memref.load %y[%[[X]]] : memref<?xf32>
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[XI]], %[[YI]] : f32
// CHECK-NEXT: %[[N:.*]] = arith.addf %[[S]], %[[P]] : f32
// CHECK-NEXT: memref.store %[[N]], %s[] : memref<f32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[R:.*]] = memref.load %s[] : memref<f32>
// CHECK: memref.store %[[R]], %result
