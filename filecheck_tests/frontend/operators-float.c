// RUN: autogpu-opt %s | filecheck %s
// RUN: autogpu-opt %s | autogpu-opt | filecheck %s

// Floating point follows C's promotions exactly: float op float stays float; a double operand
// (including an unsuffixed literal) makes the operation double, as gcc computes it.

void float_ops(float x, float y, float *out) {
  out[0] = x * y + x / y - x;
  out[1] = -x;
  out[2] = x * 2.0f;
  out[3] = x * 1.0;
  out[4] = x * 2;
}
// CHECK-LABEL: func.func @float_ops(
// CHECK: %[[M:.*]] = arith.mulf %x, %y : f32
// CHECK-NEXT: %[[D:.*]] = arith.divf %x, %y : f32
// CHECK-NEXT: %[[A:.*]] = arith.addf %[[M]], %[[D]] : f32
// CHECK-NEXT: arith.subf %[[A]], %x : f32
// CHECK: arith.negf %x : f32
// CHECK: arith.mulf %x, %[[TWO:.*]] : f32
// x * 1.0 is computed in double:
// CHECK: %[[XD:.*]] = arith.extf %x : f32 to f64
// CHECK-NEXT: %[[PD:.*]] = arith.mulf %[[XD]], %{{.*}} : f64
// CHECK: arith.truncf %[[PD]] : f64 to f32
// x * 2 converts the int literal at compile time (to the same 2.0f):
// CHECK: arith.mulf %x, %[[TWO]] : f32

void mixed(int i, unsigned u, long l, float f, double d, double *out) {
  out[0] = i + f;
  out[1] = u + f;
  out[2] = l * d;
  out[3] = f + d;
}
// CHECK-LABEL: func.func @mixed(
// CHECK: arith.sitofp %i : i32 to f32
// CHECK: arith.uitofp %u : i32 to f32
// CHECK: arith.sitofp %l : i64 to f64
// CHECK: arith.extf %f : f32 to f64
