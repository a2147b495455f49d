// RUN: autogpu-opt %s | filecheck %s
// RUN: autogpu-opt %s | autogpu-opt | filecheck %s

// Comparisons produce i1 (C's int 0 or 1, widened with extui when used as a number). && and ||
// short-circuit through scf.if when the right operand reads an array (or divides integers),
// so a guard never loads out of bounds; otherwise they are plain arith ops. ?: likewise.

void compare(int a, int b, float x, int *out) {
  out[0] = a < b;
  out[1] = a == b;
  out[2] = x >= 0.5f;
  out[3] = x != x;
  out[4] = !a;
  out[5] = !x;
}
// CHECK-LABEL: func.func @compare(
// CHECK: %[[LT:.*]] = arith.cmpi slt, %a, %b : i32
// CHECK: arith.extui %[[LT]] : i1 to i32
// CHECK: arith.cmpi eq, %a, %b : i32
// CHECK: arith.cmpf oge, %x, %{{.*}} : f32
// CHECK: arith.cmpf une, %x, %x : f32
// CHECK: arith.cmpi eq, %a, %{{.*}} : i32
// CHECK: arith.cmpf oeq, %x, %{{.*}} : f32

void guard(int n, int i, float *a, int *out) {
  out[0] = i < n && a[i] > 0;
  out[1] = i >= n || a[i] > 0;
  out[2] = i < n && n > 0;
}
// CHECK-LABEL: func.func @guard(
// CHECK: %[[IN:.*]] = arith.cmpi slt, %i, %n : i32
// CHECK-NEXT: %[[AND:.*]] = scf.if %[[IN]] -> (i1) {
// CHECK: memref.load %a
// CHECK: arith.cmpf ogt
// CHECK: scf.yield %{{.*}} : i1
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[F:.*]] = arith.constant false
// CHECK-NEXT: scf.yield %[[F]] : i1
// CHECK: %[[OUT:.*]] = arith.cmpi sge, %i, %n : i32
// CHECK-NEXT: scf.if %[[OUT]] -> (i1) {
// CHECK-NEXT: %[[T:.*]] = arith.constant true
// CHECK-NEXT: scf.yield %[[T]] : i1
// CHECK-NEXT: } else {
// CHECK: memref.load %a
// Without a load, && is an andi of both conditions:
// CHECK: %[[C1:.*]] = arith.cmpi slt, %i, %n : i32
// CHECK: %[[C2:.*]] = arith.cmpi sgt, %n, %{{.*}} : i32
// CHECK: arith.andi %[[C1]], %[[C2]] : i1

void conditional(int n, int i, float x, float *a, float *out) {
  out[0] = x > 0 ? x : -x;
  out[1] = i < n ? a[i] : 0.0f;
  out[2] = n ? 1 : 2.5;
}
// CHECK-LABEL: func.func @conditional(
// CHECK: arith.select %{{.*}}, %x, %{{.*}} : f32
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK: memref.load %a
// The type of ?: is the usual conversion of both branches (double here):
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f64

void integer_division_guarded(int d, int *out) {
  out[0] = d != 0 && 10 / d > 1;
}
// CHECK-LABEL: func.func @integer_division_guarded(
// CHECK: scf.if
// CHECK: arith.divsi
