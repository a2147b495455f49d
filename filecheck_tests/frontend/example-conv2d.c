// RUN: autogpu-opt %examples/conv2d.c | filecheck %s
// RUN: autogpu-opt %examples/conv2d.c | autogpu-opt | filecheck %s

// pn is an SSA value (never reassigned); sum is private to each (j, i) iteration: its slot
// is allocated inside the parallel loop nest.
// CHECK-LABEL: func.func @conv2d(
// CHECK: %[[T:.*]] = arith.addi %n, %t overflow<nsw> : i32
// CHECK-NEXT: %pn = arith.subi %[[T]], %c1 overflow<nsw> : i32
// CHECK: agpu.parallel_for %j = %c0 to %m step %c1 : i32 {
// CHECK: agpu.parallel_for %i = %{{.*}} to %n step %{{.*}} : i32 {
// CHECK: %sum = memref.alloca() : memref<f32>
// CHECK: scf.for %v = %{{.*}} to %t
// CHECK: scf.for %u = %{{.*}} to %t
// CHECK: arith.muli %{{.*}}, %pn overflow<nsw> : i32
// CHECK: memref.store %{{.*}}, %sum[] : memref<f32>
// CHECK: %[[SUM:.*]] = memref.load %sum[] : memref<f32>
// CHECK: memref.store %[[SUM]], %out
