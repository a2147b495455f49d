// RUN: autogpu-opt %s | filecheck %s
// RUN: autogpu-opt %s | autogpu-opt | filecheck %s

// Locals: a variable never reassigned is the SSA value of its initializer, named after it;
// one reassigned later, or declared without initializer, lives in a rank-0 memref slot.

void ssa_and_slots(int n, float *out) {
  int twice = n * 2, plus = n + 1;
  float half = 0.5f;
  const double k = 3;
  int count;
  count = 0;
  float acc = 1.0f;
  acc *= half;
  out[0] = twice + plus + count + acc + k;
}
// CHECK-LABEL: func.func @ssa_and_slots(
// CHECK: %twice = arith.muli %n, %{{.*}} : i32
// CHECK: %plus = arith.addi %n, %{{.*}} : i32
// CHECK: %half = arith.constant 5.000000e-01 : f32
// CHECK: %k = arith.constant 3.000000e+00 : f64
// CHECK: %count = memref.alloca() : memref<i32>
// CHECK: memref.store %{{.*}}, %count[] : memref<i32>
// CHECK: %acc = memref.alloca() : memref<f32>
// CHECK: %[[ACC:.*]] = memref.load %acc[] : memref<f32>
// CHECK: arith.mulf %[[ACC]], %half : f32

// An initializer converts to the declared type (C's conversion on initialization).
void converts(float *out, double d, long big) {
  float f = 1.0;
  int i = d;
  unsigned u = -1;
  int narrow = big;
  out[0] = f + i + u + narrow;
}
// CHECK-LABEL: func.func @converts(
// u is the constant 4294967295, folded into the float sum as (float)u:
// CHECK: %[[UF:.*]] = arith.constant 4.2949673e+09 : f32
// CHECK: %f = arith.constant 1.000000e+00 : f32
// CHECK: %i = arith.fptosi %d : f64 to i32
// CHECK: %narrow = arith.trunci %big : i64 to i32
// CHECK: arith.addf %{{.*}}, %[[UF]] : f32

// Shadowing in an inner block is a new variable; the outer one is untouched.
void shadowing(int n, int *out) {
  int x = n;
  {
    int x = 5;
    out[0] = x;
  }
  out[1] = x;
}
// CHECK-LABEL: func.func @shadowing(
// CHECK: %[[C5:.*]] = arith.constant 5 : i32
// CHECK: memref.store %[[C5]], %out
// CHECK: memref.store %n, %out
