// RUN: autogpu-opt %examples/matmul.c | filecheck %s
// RUN: autogpu-opt %examples/matmul.c | autogpu-opt | filecheck %s

// collapse(2) over j and i; k stays a serial scf.for accumulating into A[i + j * m].
// CHECK-LABEL: func.func @matmul(%A: memref<?xf32> {{.*}}, %B: memref<?xf32> {{.*}}agpu.const{{.*}}, %C: memref<?xf32> {{.*}}, %m: i32 {{.*}}, %n: i32 {{.*}}, %p: i32 {{.*}}) {
// CHECK: agpu.parallel_for %j = %c0 to %n step %c1 : i32 {
// CHECK: agpu.parallel_for %i = %{{.*}} to %m step %{{.*}} : i32 {
// CHECK: scf.for %k = %{{.*}} to %p step %{{.*}} : i32 {
// CHECK: %[[JM:.*]] = arith.muli %j, %m overflow<nsw> : i32
// CHECK-NEXT: %[[AI:.*]] = arith.addi %i, %[[JM]] overflow<nsw> : i32
// CHECK-NEXT: %[[AX:.*]] = arith.index_cast %[[AI]] : i32 to index
// CHECK-NEXT: %[[A:.*]] = memref.load %A[%[[AX]]] : memref<?xf32>
// CHECK: %[[B:.*]] = memref.load %B
// CHECK: %[[C:.*]] = memref.load %C
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[B]], %[[C]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[P]] : f32
// CHECK-NEXT: memref.store %[[S]], %A[%[[AX]]] : memref<?xf32>
