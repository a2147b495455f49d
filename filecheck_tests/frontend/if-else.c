// RUN: autogpu-opt %s | filecheck %s
// RUN: autogpu-opt %s | autogpu-opt | filecheck %s

void branches(int n, float x, float *out) {
  if (n > 0)
    out[0] = 1;
  if (x)
    out[1] = 2;
  else if (n)
    out[1] = 3;
  else {
    out[1] = 4;
  }
}
// CHECK-LABEL: func.func @branches(
// CHECK: %[[C:.*]] = arith.cmpi sgt, %n, %{{.*}} : i32
// CHECK: scf.if %[[C]] {
// CHECK: memref.store
// CHECK-NOT: else
// CHECK: }
// A float condition is true when non-zero (NaN included): cmpf une.
// CHECK: %[[X:.*]] = arith.cmpf une, %x, %{{.*}} : f32
// CHECK: scf.if %[[X]] {
// CHECK: } else {
// CHECK: %[[N:.*]] = arith.cmpi ne, %n, %{{.*}} : i32
// CHECK: scf.if %[[N]] {
// CHECK: } else {
