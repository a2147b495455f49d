// RUN: autogpu-opt %s | filecheck %s
// RUN: autogpu-opt %s | autogpu-opt | filecheck %s

// Loops not in canonical form become scf.while over memory slots, keeping C's semantics
// exactly: the condition is re-evaluated before every iteration.

void assigned_in_body(int n, float *a) {
  for (int i = 0; i < n; i++) {
    a[i] = 0;
    i += 1;
  }
}
// CHECK-LABEL: func.func @assigned_in_body(
// CHECK: %i = memref.alloca() : memref<i32>
// CHECK: scf.while () : () -> () {
// CHECK: %[[I:.*]] = memref.load %i[] : memref<i32>
// CHECK: %[[C:.*]] = arith.cmpi slt, %[[I]], %n : i32
// CHECK: scf.condition(%[[C]])
// CHECK: } do {
// CHECK: scf.yield

void float_variable(float *a) {
  for (float x = 0.0f; x < 1.0f; x += 0.25f) a[0] += x;
}
// CHECK-LABEL: func.func @float_variable(
// CHECK: %x = memref.alloca() : memref<f32>
// CHECK: scf.while
// CHECK: arith.cmpf olt

void geometric(int n, float *a) {
  for (int i = 1; i < n; i = i * 2) a[i] = 0;
}
// CHECK-LABEL: func.func @geometric(
// CHECK: scf.while
// CHECK: arith.muli

void bound_changes(int n, float *a) {
  for (int i = 0; i < n; i++) n = n - 1;
}
// CHECK-LABEL: func.func @bound_changes(
// CHECK: scf.while

void bound_reads_written_memory(int *len, float *a) {
  for (int i = 0; i < len[0]; i++) a[i] = 0;
}
// CHECK-LABEL: func.func @bound_reads_written_memory(
// CHECK: scf.while
// CHECK: memref.load %len

void mixed_types(int n, size_t m, float *a) {
  for (int i = 0; i < m; i++) a[i] = 0;
}
// CHECK-LABEL: func.func @mixed_types(
// CHECK: scf.while
// CHECK: arith.extsi
// CHECK: arith.cmpi ult

void no_condition(int n, float *a) {
  for (int i = 0;; i++) a[i] = 0;
}
// CHECK-LABEL: func.func @no_condition(
// CHECK: scf.while
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: scf.condition(%[[TRUE]])
