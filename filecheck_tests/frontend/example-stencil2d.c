// RUN: autogpu-opt %examples/stencil2d.c | filecheck %s
// RUN: autogpu-opt %examples/stencil2d.c | autogpu-opt | filecheck %s

// C99 array parameters, flattened row-major in i64 (C's pointer arithmetic); 0.25 is a double, so is everything here.
// CHECK-LABEL: func.func @jacobi2d(%n: i32 {{.*}}, %m: i32 {{.*}}, %in: memref<?xf64> {agpu.name = "in", agpu.ctype = "double", agpu.const, agpu.extents = ["n", "m"]}, %out: memref<?xf64> {agpu.name = "out", agpu.ctype = "double", agpu.extents = ["n", "m"]}) {
// CHECK: %[[UB:.*]] = arith.subi %n, %c1 overflow<nsw> : i32
// CHECK: agpu.parallel_for %i = %c1 to %[[UB]] step %c1 : i32 {
// CHECK: agpu.parallel_for %j = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// in[i - 1][j]:
// CHECK: %[[IM1:.*]] = arith.subi %i, %{{.*}} overflow<nsw> : i32
// CHECK-NEXT: %[[IW:.*]] = arith.extsi %[[IM1]] : i32 to i64
// CHECK-NEXT: %[[MW:.*]] = arith.extsi %m : i32 to i64
// CHECK-NEXT: %[[ROW:.*]] = arith.muli %[[IW]], %[[MW]] overflow<nsw> : i64
// CHECK-NEXT: %[[JW:.*]] = arith.extsi %j : i32 to i64
// CHECK-NEXT: %[[FLAT:.*]] = arith.addi %[[ROW]], %[[JW]] overflow<nsw> : i64
// CHECK-NEXT: %[[X:.*]] = arith.index_cast %[[FLAT]] : i64 to index
// CHECK-NEXT: memref.load %in[%[[X]]] : memref<?xf64>
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK: memref.store %{{.*}}, %out[%{{.*}}] : memref<?xf64>
