// RUN: autogpu-opt %s | filecheck %s
// RUN: autogpu-opt %s | autogpu-opt | filecheck %s

// Casts and implicit conversions: each pair of C types gets the op that gcc's conversion is.

void casts(int i, unsigned u, long l, unsigned long ul, float f, double d, double *out) {
  out[0] = (float)i;
  out[1] = (float)u;
  out[2] = (double)ul;
  out[3] = (int)f;
  out[4] = (unsigned)d;
  out[5] = (long)i;
  out[6] = (long)u;
  out[7] = (int)l;
  out[8] = (unsigned long)i;
  out[9] = (float)d;
  out[10] = (unsigned)i;
}
// CHECK-LABEL: func.func @casts(
// CHECK: arith.sitofp %i : i32 to f32
// CHECK: arith.uitofp %u : i32 to f32
// CHECK: arith.uitofp %ul : i64 to f64
// CHECK: arith.fptosi %f : f32 to i32
// CHECK: arith.fptoui %d : f64 to i32
// CHECK: arith.extsi %i : i32 to i64
// CHECK: arith.extui %u : i32 to i64
// CHECK: arith.trunci %l : i64 to i32
// CHECK: arith.extsi %i : i32 to i64
// CHECK: arith.truncf %d : f64 to f32
// int -> unsigned keeps the bits: no op, the value is used as is
// CHECK: arith.uitofp %i : i32 to f64

// Constants convert at compile time with C's rounding: (float)16777217 is 16777216.
void constant_casts(float *out, int *iout) {
  out[0] = (float)16777217;
  out[1] = (float)0.1;
  iout[0] = (int)-2.75;
  iout[1] = (unsigned)-1 > 0;
}
// CHECK-LABEL: func.func @constant_casts(
// CHECK: arith.constant 0x4B800000 : f32
// CHECK: arith.constant 1.000000e-01 : f32
// CHECK: arith.constant -2 : i32
// CHECK: arith.cmpi ugt
