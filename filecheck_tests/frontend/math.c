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
