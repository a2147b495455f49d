// RUN: autogpu-opt %s | filecheck %s
// RUN: autogpu-opt %s | autogpu-opt | filecheck %s

// C math functions: the `f` variants compute in float; the plain ones take and return double,
// so a float argument is promoted (sqrt(x) on a float x is a double square root).

void float_variants(float x, float y, float *out) {
  out[0] = sqrtf(x);
  out[1] = expf(x) + logf(x);
  out[2] = fabsf(x);
  out[3] = sinf(x) + cosf(x);
  out[4] = floorf(x) + ceilf(x);
  out[5] = fminf(x, y) + fmaxf(x, y);
  out[6] = powf(x, y);
}
// CHECK-LABEL: func.func @float_variants(
// CHECK: math.sqrt %x : f32
// CHECK: math.exp %x : f32
// CHECK: math.log %x : f32
// CHECK: math.absf %x : f32
// CHECK: math.sin %x : f32
// CHECK: math.cos %x : f32
// CHECK: math.floor %x : f32
// CHECK: math.ceil %x : f32
// CHECK: arith.minnumf %x, %y : f32
// CHECK: arith.maxnumf %x, %y : f32
// CHECK: math.powf %x, %y : f32

void double_variants(float x, int n, double d, float *out) {
  out[0] = sqrt(x);
  out[1] = exp(n);
  out[2] = pow(d, 2);
  out[3] = fabs(d) + fmin(d, x) + fmax(x, 1) + log(d) + sin(d) + cos(d) + floor(d) + ceil(d);
}
// CHECK-LABEL: func.func @double_variants(
// CHECK: %[[XD:.*]] = arith.extf %x : f32 to f64
// CHECK-NEXT: %[[S:.*]] = math.sqrt %[[XD]] : f64
// CHECK: arith.truncf %[[S]] : f64 to f32
// CHECK: %[[ND:.*]] = arith.sitofp %n : i32 to f64
// CHECK-NEXT: math.exp %[[ND]] : f64
// CHECK: math.powf %d, %{{.*}} : f64
// CHECK: math.absf %d : f64
// CHECK: arith.minnumf %d, %{{.*}} : f64
// CHECK: arith.maxnumf %{{.*}}, %{{.*}} : f64

// min/max: the usual arithmetic conversions, then a signed, unsigned or float min/max.
void min_max(int i, int j, unsigned u, float f, double *out) {
  out[0] = min(i, j);
  out[1] = max(i, u);
  out[2] = min(f, i);
  out[3] = max(f, 2.0);
}
// CHECK-LABEL: func.func @min_max(
// CHECK: arith.minsi %i, %j : i32
// CHECK: arith.maxui %i, %u : i32
// CHECK: arith.minnumf %f, %{{.*}} : f32
// CHECK: arith.maxnumf %{{.*}}, %{{.*}} : f64

// The rest of <math.h> (autogpu/dialects/c_math.py): a `math` op where xDSL has one, else
// `agpu.math_call` naming the double form's C name at the type of the form called.
void library(float x, double d, int e, long n, float *out, double *o2) {
  out[0] = tanhf(x) + erfcf(x) + atan2f(x, 1.0f) + fmaf(x, x, 1.0f);
  out[1] = ldexpf(x, e) + rintf(x) + nearbyintf(x) + truncf(x) + roundf(x);
  o2[0] = tgamma(d) + scalbln(d, n) + fmod(d, 2.0) + copysign(d, -1.0);
  o2[1] = lround(d) + lrintf(x) + ilogb(d);
}
// CHECK-LABEL: func.func @library(
// CHECK: math.tanh %x : f32
// CHECK: "agpu.math_call"(%x) <{function = "erfc"}> : (f32) -> f32
// CHECK: math.atan2 %x, %{{.*}} : f32
// CHECK: math.fma %x, %x, %{{.*}} : f32
// CHECK: "agpu.math_call"(%x, %e) <{function = "ldexp"}> : (f32, i32) -> f32
// CHECK: math.roundeven %x : f32
// CHECK: math.roundeven %x : f32
// CHECK: math.trunc %x : f32
// CHECK: math.round %x : f32
// CHECK: "agpu.math_call"(%d) <{function = "tgamma"}> : (f64) -> f64
// CHECK: "agpu.math_call"(%d, %n) <{function = "scalbln"}> : (f64, i64) -> f64
// CHECK: "agpu.math_call"(%d, %{{.*}}) <{function = "fmod"}> : (f64, f64) -> f64
// CHECK: math.copysign %d, %{{.*}} : f64
// CHECK: %[[R:.*]] = math.round %d : f64
// CHECK-NEXT: arith.fptosi %[[R]] : f64 to i64
// CHECK: %[[RI:.*]] = math.roundeven %x : f32
// CHECK-NEXT: arith.fptosi %[[RI]] : f32 to i64
// CHECK: "agpu.math_call"(%d) <{function = "ilogb"}> : (f64) -> i32

// Classification macros, with gcc's values on x86-64; abs, labs and llabs.
void classify(float x, double d, int i, long l, int *out, long *o2) {
  out[0] = isnan(x);
  out[1] = isinf(d);
  out[2] = isfinite(x);
  out[3] = signbit(x);
  out[4] = signbit(d);
  out[5] = abs(i);
  o2[0] = labs(l) + llabs(l);
}
// CHECK-LABEL: func.func @classify(
// CHECK: arith.cmpf uno, %x, %x : f32
// CHECK: %[[PINF:.*]] = arith.cmpf oeq, %d, %[[INF:.*]] : f64
// CHECK: %[[NINF:.*]] = arith.cmpf oeq, %d, %{{.*}} : f64
// CHECK: %[[SIGN:.*]] = arith.select %[[NINF]], %{{.*}}, %{{.*}} : i32
// CHECK: arith.select %[[PINF]], %{{.*}}, %[[SIGN]] : i32
// CHECK: %[[ABS:.*]] = math.absf %x : f32
// CHECK-NEXT: arith.cmpf olt, %[[ABS]], %{{.*}} : f32
// CHECK: %[[BITS:.*]] = arith.bitcast %x : f32 to i32
// CHECK-NEXT: arith.andi %[[BITS]], %{{.*}} : i32
// CHECK: %[[DBITS:.*]] = arith.bitcast %d : f64 to i64
// CHECK-NEXT: %[[TOP:.*]] = arith.shrui %[[DBITS]], %{{.*}} : i64
// CHECK-NEXT: arith.trunci %[[TOP]] : i64 to i32
// CHECK: math.absi %i : i32
// CHECK: math.absi %l : i64
// CHECK: math.absi %l : i64
