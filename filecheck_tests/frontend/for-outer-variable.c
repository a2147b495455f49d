// RUN: autogpu-opt %s | filecheck %s
// RUN: autogpu-opt %s | autogpu-opt | filecheck %s

// An induction variable declared before the loop is still canonical; inside the loop it is the
// scf.for variable, and its exit value is stored back after the loop, as C leaves it.

void exit_value(int n, int *out) {
  int i;
  for (i = 0; i < n; i++) out[i] = i;
  out[0] = i;
}
// CHECK-LABEL: func.func @exit_value(
// CHECK: %i = memref.alloca() : memref<i32>
// CHECK: scf.for %[[IV:.*]] = %[[LB:.*]] to %n step
// CHECK: memref.store %[[IV]], %out
// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %[[LB]], %n : i32
// CHECK: %[[EXIT:.*]] = arith.select %[[RUNS]], %n, %[[LB]] : i32
// CHECK: memref.store %[[EXIT]], %i[] : memref<i32>

void no_init(int n, int *out) {
  int i = 3;
  for (; i < n; i++) out[i] = 0;
}
// CHECK-LABEL: func.func @no_init(
// CHECK: %[[START:.*]] = memref.load %i[] : memref<i32>
// CHECK: scf.for %{{.*}} = %[[START]] to %n
