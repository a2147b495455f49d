// RUN: autogpu-opt %s | filecheck %s
// RUN: autogpu-opt %s | autogpu-opt | filecheck %s

// Integer literals get C's type from value, base and suffix (LP64); floating literals are
// rounded once, straight to their type (0.1f is the float nearest 0.1, not a rounded double).

void integers(long *out) {
  out[0] = 42;
  out[1] = 0x7fffffff;
  out[2] = 0xffffffff;
  out[3] = 2147483648;
  out[4] = 017;
  out[5] = 10u;
  out[6] = 10L;
  out[7] = 10ul;
  out[8] = 0xFFFFFFFFFFFFFFFFUL;
  out[9] = 10LL;
  out[10] = -2147483648;
}
// CHECK-LABEL: func.func @integers(
// 42 is an int, widened when stored:
// CHECK: arith.constant 42 : i64
// 0xffffffff is an unsigned int (4294967295), zero-extended:
// CHECK: arith.constant 2147483647 : i64
// CHECK: arith.constant 4294967295 : i64
// 2147483648 does not fit an int: it is a long
// CHECK: arith.constant 2147483648 : i64
// CHECK: arith.constant 15 : i64
// CHECK: arith.constant 10 : i64
// CHECK: arith.constant -1 : i64
// CHECK: arith.constant -2147483648 : i64

void types(int *out, unsigned u) {
  out[0] = -1 < 0u;
  out[1] = -1 < 0L;
  out[2] = 0xffffffff == -1;
}
// -1 < 0u compares unsigned (false); -1 < 0L compares long (true):
// CHECK-LABEL: func.func @types(
// CHECK: %[[M1:.*]] = arith.constant -1 : i32
// CHECK: arith.cmpi ult, %[[M1]], %{{.*}} : i32
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i64
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : i32

void floats(float *f, double *d) {
  f[0] = 0.1f;
  f[1] = 1e-45f;
  f[2] = 3.4028235e38F;
  f[3] = 0x1.8p1f;
  f[4] = .5f;
  f[5] = 1e39f;
  d[0] = 0.1;
  d[1] = 1e308;
  d[2] = 5e-324;
  d[3] = 0x1p-3;
  d[4] = 2.;
  d[5] = 1.5e+3;
}
// CHECK-LABEL: func.func @floats(
// CHECK: arith.constant 1.000000e-01 : f32
// CHECK: arith.constant 1.401300e-45 : f32
// CHECK: arith.constant 3.40282347e+38 : f32
// CHECK: arith.constant 3.000000e+00 : f32
// CHECK: arith.constant 5.000000e-01 : f32
// CHECK: arith.constant 0x7f800000 : f32
// CHECK: arith.constant 1.000000e-01 : f64
// CHECK: arith.constant 1.000000e+308 : f64
// CHECK: arith.constant 4.940660e-324 : f64
// CHECK: arith.constant 1.250000e-01 : f64
// CHECK: arith.constant 2.000000e+00 : f64
// CHECK: arith.constant 1.500000e+03 : f64
