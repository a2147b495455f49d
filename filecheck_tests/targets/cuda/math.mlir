// RUN: autogpu-opt %s -t cuda | filecheck %s

// math.* calls the CUDA math function of the operand's precision: `sqrtf` on f32, `sqrt` on f64.

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (f32, f32, i32, memref<?xf32>) -> (), kernel}> ({
    ^bb0(%x: f32, %y: f32, %n: i32, %out: memref<?xf32>):
      %c0 = arith.constant 0 : index
      %u0 = math.absf %x : f32
      memref.store %u0, %out[%c0] : memref<?xf32>
      %u1 = math.sqrt %x : f32
      memref.store %u1, %out[%c0] : memref<?xf32>
      %u2 = math.rsqrt %x : f32
      memref.store %u2, %out[%c0] : memref<?xf32>
      %u3 = math.exp %x : f32
      memref.store %u3, %out[%c0] : memref<?xf32>
      %u4 = math.exp2 %x : f32
      memref.store %u4, %out[%c0] : memref<?xf32>
      %u5 = math.expm1 %x : f32
      memref.store %u5, %out[%c0] : memref<?xf32>
      %u6 = math.log %x : f32
      memref.store %u6, %out[%c0] : memref<?xf32>
      %u7 = math.log2 %x : f32
      memref.store %u7, %out[%c0] : memref<?xf32>
      %u8 = math.log10 %x : f32
      memref.store %u8, %out[%c0] : memref<?xf32>
      %u9 = math.log1p %x : f32
      memref.store %u9, %out[%c0] : memref<?xf32>
      %u10 = math.sin %x : f32
      memref.store %u10, %out[%c0] : memref<?xf32>
      %u11 = math.cos %x : f32
      memref.store %u11, %out[%c0] : memref<?xf32>
      %u12 = math.tan %x : f32
      memref.store %u12, %out[%c0] : memref<?xf32>
      %u13 = math.sinh %x : f32
      memref.store %u13, %out[%c0] : memref<?xf32>
      %u14 = math.cosh %x : f32
      memref.store %u14, %out[%c0] : memref<?xf32>
      %u15 = math.tanh %x : f32
      memref.store %u15, %out[%c0] : memref<?xf32>
      %u16 = math.asin %x : f32
      memref.store %u16, %out[%c0] : memref<?xf32>
      %u17 = math.acos %x : f32
      memref.store %u17, %out[%c0] : memref<?xf32>
      %u18 = math.atan %x : f32
      memref.store %u18, %out[%c0] : memref<?xf32>
      %u19 = math.asinh %x : f32
      memref.store %u19, %out[%c0] : memref<?xf32>
      %u20 = math.acosh %x : f32
      memref.store %u20, %out[%c0] : memref<?xf32>
      %u21 = math.atanh %x : f32
      memref.store %u21, %out[%c0] : memref<?xf32>
      %u22 = math.cbrt %x : f32
      memref.store %u22, %out[%c0] : memref<?xf32>
      %u23 = math.erf %x : f32
      memref.store %u23, %out[%c0] : memref<?xf32>
      %u24 = math.floor %x : f32
      memref.store %u24, %out[%c0] : memref<?xf32>
      %u25 = math.ceil %x : f32
      memref.store %u25, %out[%c0] : memref<?xf32>
      %u26 = math.trunc %x : f32
      memref.store %u26, %out[%c0] : memref<?xf32>
      %u27 = math.round %x : f32
      memref.store %u27, %out[%c0] : memref<?xf32>
      %u28 = math.roundeven %x : f32
      memref.store %u28, %out[%c0] : memref<?xf32>
      %b0 = math.powf %x, %y : f32
      memref.store %b0, %out[%c0] : memref<?xf32>
      %b1 = math.atan2 %x, %y : f32
      memref.store %b1, %out[%c0] : memref<?xf32>
      %b2 = math.copysign %x, %y : f32
      memref.store %b2, %out[%c0] : memref<?xf32>
      %f = math.fma %x, %y, %x : f32
      memref.store %f, %out[%c0] : memref<?xf32>
      %pi = math.fpowi %x, %n : f32, i32
      memref.store %pi, %out[%c0] : memref<?xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "math_f32"} : () -> ()
    "gpu.func"() <{function_type = (f64, f64, i32, memref<?xf64>) -> (), kernel}> ({
    ^bb0(%x: f64, %y: f64, %n: i32, %out: memref<?xf64>):
      %c0 = arith.constant 0 : index
      %u0 = math.absf %x : f64
      memref.store %u0, %out[%c0] : memref<?xf64>
      %u1 = math.sqrt %x : f64
      memref.store %u1, %out[%c0] : memref<?xf64>
      %u2 = math.rsqrt %x : f64
      memref.store %u2, %out[%c0] : memref<?xf64>
      %u3 = math.exp %x : f64
      memref.store %u3, %out[%c0] : memref<?xf64>
      %u4 = math.exp2 %x : f64
      memref.store %u4, %out[%c0] : memref<?xf64>
      %u5 = math.expm1 %x : f64
      memref.store %u5, %out[%c0] : memref<?xf64>
      %u6 = math.log %x : f64
      memref.store %u6, %out[%c0] : memref<?xf64>
      %u7 = math.log2 %x : f64
      memref.store %u7, %out[%c0] : memref<?xf64>
      %u8 = math.log10 %x : f64
      memref.store %u8, %out[%c0] : memref<?xf64>
      %u9 = math.log1p %x : f64
      memref.store %u9, %out[%c0] : memref<?xf64>
      %u10 = math.sin %x : f64
      memref.store %u10, %out[%c0] : memref<?xf64>
      %u11 = math.cos %x : f64
      memref.store %u11, %out[%c0] : memref<?xf64>
      %u12 = math.tan %x : f64
      memref.store %u12, %out[%c0] : memref<?xf64>
      %u13 = math.sinh %x : f64
      memref.store %u13, %out[%c0] : memref<?xf64>
      %u14 = math.cosh %x : f64
      memref.store %u14, %out[%c0] : memref<?xf64>
      %u15 = math.tanh %x : f64
      memref.store %u15, %out[%c0] : memref<?xf64>
      %u16 = math.asin %x : f64
      memref.store %u16, %out[%c0] : memref<?xf64>
      %u17 = math.acos %x : f64
      memref.store %u17, %out[%c0] : memref<?xf64>
      %u18 = math.atan %x : f64
      memref.store %u18, %out[%c0] : memref<?xf64>
      %u19 = math.asinh %x : f64
      memref.store %u19, %out[%c0] : memref<?xf64>
      %u20 = math.acosh %x : f64
      memref.store %u20, %out[%c0] : memref<?xf64>
      %u21 = math.atanh %x : f64
      memref.store %u21, %out[%c0] : memref<?xf64>
      %u22 = math.cbrt %x : f64
      memref.store %u22, %out[%c0] : memref<?xf64>
      %u23 = math.erf %x : f64
      memref.store %u23, %out[%c0] : memref<?xf64>
      %u24 = math.floor %x : f64
      memref.store %u24, %out[%c0] : memref<?xf64>
      %u25 = math.ceil %x : f64
      memref.store %u25, %out[%c0] : memref<?xf64>
      %u26 = math.trunc %x : f64
      memref.store %u26, %out[%c0] : memref<?xf64>
      %u27 = math.round %x : f64
      memref.store %u27, %out[%c0] : memref<?xf64>
      %u28 = math.roundeven %x : f64
      memref.store %u28, %out[%c0] : memref<?xf64>
      %b0 = math.powf %x, %y : f64
      memref.store %b0, %out[%c0] : memref<?xf64>
      %b1 = math.atan2 %x, %y : f64
      memref.store %b1, %out[%c0] : memref<?xf64>
      %b2 = math.copysign %x, %y : f64
      memref.store %b2, %out[%c0] : memref<?xf64>
      %f = math.fma %x, %y, %x : f64
      memref.store %f, %out[%c0] : memref<?xf64>
      %pi = math.fpowi %x, %n : f64, i32
      memref.store %pi, %out[%c0] : memref<?xf64>
      "gpu.return"() : () -> ()
    }) {sym_name = "math_f64"} : () -> ()
    "gpu.func"() <{function_type = (i32, i64, memref<?xi32>, memref<?xi64>) -> (), kernel}> ({
    ^bb0(%a: i32, %w: i64, %out: memref<?xi32>, %wout: memref<?xi64>):
      %c0 = arith.constant 0 : index
      %0 = math.absi %a : i32
      memref.store %0, %out[%c0] : memref<?xi32>
      %1 = math.ctlz %a : i32
      memref.store %1, %out[%c0] : memref<?xi32>
      %2 = math.cttz %a : i32
      memref.store %2, %out[%c0] : memref<?xi32>
      %3 = math.ctpop %a : i32
      memref.store %3, %out[%c0] : memref<?xi32>
      %4 = math.absi %w : i64
      memref.store %4, %wout[%c0] : memref<?xi64>
      %5 = math.ctlz %w : i64
      memref.store %5, %wout[%c0] : memref<?xi64>
      %6 = math.cttz %w : i64
      memref.store %6, %wout[%c0] : memref<?xi64>
      %7 = math.ctpop %w : i64
      memref.store %7, %wout[%c0] : memref<?xi64>
      "gpu.return"() : () -> ()
    }) {sym_name = "math_int"} : () -> ()
  }) : () -> ()
}

// CHECK:      static __device__ inline int agpu_cttz(int x) {
// CHECK-NEXT:   return x == 0 ? 32 : __ffs(x) - 1;
// CHECK:      static __device__ inline long long agpu_cttz(long long x) {
// CHECK-NEXT:   return x == 0 ? 64 : __ffsll(x) - 1;

// CHECK-LABEL: extern "C" __global__ void math_f32(float x, float y, int n, float *out) {
// CHECK-NEXT:    out[0] = fabsf(x);
// CHECK-NEXT:    out[0] = sqrtf(x);
// CHECK-NEXT:    out[0] = rsqrtf(x);
// CHECK-NEXT:    out[0] = expf(x);
// CHECK-NEXT:    out[0] = exp2f(x);
// CHECK-NEXT:    out[0] = expm1f(x);
// CHECK-NEXT:    out[0] = logf(x);
// CHECK-NEXT:    out[0] = log2f(x);
// CHECK-NEXT:    out[0] = log10f(x);
// CHECK-NEXT:    out[0] = log1pf(x);
// CHECK-NEXT:    out[0] = sinf(x);
// CHECK-NEXT:    out[0] = cosf(x);
// CHECK-NEXT:    out[0] = tanf(x);
// CHECK-NEXT:    out[0] = sinhf(x);
// CHECK-NEXT:    out[0] = coshf(x);
// CHECK-NEXT:    out[0] = tanhf(x);
// CHECK-NEXT:    out[0] = asinf(x);
// CHECK-NEXT:    out[0] = acosf(x);
// CHECK-NEXT:    out[0] = atanf(x);
// CHECK-NEXT:    out[0] = asinhf(x);
// CHECK-NEXT:    out[0] = acoshf(x);
// CHECK-NEXT:    out[0] = atanhf(x);
// CHECK-NEXT:    out[0] = cbrtf(x);
// CHECK-NEXT:    out[0] = erff(x);
// CHECK-NEXT:    out[0] = floorf(x);
// CHECK-NEXT:    out[0] = ceilf(x);
// CHECK-NEXT:    out[0] = truncf(x);
// CHECK-NEXT:    out[0] = roundf(x);
// CHECK-NEXT:    out[0] = rintf(x);
// CHECK-NEXT:    out[0] = powf(x, y);
// CHECK-NEXT:    out[0] = atan2f(x, y);
// CHECK-NEXT:    out[0] = copysignf(x, y);
// CHECK-NEXT:    out[0] = fmaf(x, y, x);
// CHECK-NEXT:    out[0] = powf(x, (float)n);
// CHECK-NEXT:  }

// CHECK-LABEL: extern "C" __global__ void math_f64(double x, double y, int n, double *out) {
// CHECK-NEXT:    out[0] = fabs(x);
// CHECK-NEXT:    out[0] = sqrt(x);
// CHECK-NEXT:    out[0] = rsqrt(x);
// CHECK-NEXT:    out[0] = exp(x);
// CHECK-NEXT:    out[0] = exp2(x);
// CHECK-NEXT:    out[0] = expm1(x);
// CHECK-NEXT:    out[0] = log(x);
// CHECK-NEXT:    out[0] = log2(x);
// CHECK-NEXT:    out[0] = log10(x);
// CHECK-NEXT:    out[0] = log1p(x);
// CHECK-NEXT:    out[0] = sin(x);
// CHECK-NEXT:    out[0] = cos(x);
// CHECK-NEXT:    out[0] = tan(x);
// CHECK-NEXT:    out[0] = sinh(x);
// CHECK-NEXT:    out[0] = cosh(x);
// CHECK-NEXT:    out[0] = tanh(x);
// CHECK-NEXT:    out[0] = asin(x);
// CHECK-NEXT:    out[0] = acos(x);
// CHECK-NEXT:    out[0] = atan(x);
// CHECK-NEXT:    out[0] = asinh(x);
// CHECK-NEXT:    out[0] = acosh(x);
// CHECK-NEXT:    out[0] = atanh(x);
// CHECK-NEXT:    out[0] = cbrt(x);
// CHECK-NEXT:    out[0] = erf(x);
// CHECK-NEXT:    out[0] = floor(x);
// CHECK-NEXT:    out[0] = ceil(x);
// CHECK-NEXT:    out[0] = trunc(x);
// CHECK-NEXT:    out[0] = round(x);
// CHECK-NEXT:    out[0] = rint(x);
// CHECK-NEXT:    out[0] = pow(x, y);
// CHECK-NEXT:    out[0] = atan2(x, y);
// CHECK-NEXT:    out[0] = copysign(x, y);
// CHECK-NEXT:    out[0] = fma(x, y, x);
// CHECK-NEXT:    out[0] = pow(x, (double)n);
// CHECK-NEXT:  }

// CHECK-LABEL: extern "C" __global__ void math_int(int a, long long w, int *out, long long *wout) {
// CHECK-NEXT:    out[0] = abs(a);
// CHECK-NEXT:    out[0] = __clz(a);
// CHECK-NEXT:    out[0] = agpu_cttz(a);
// CHECK-NEXT:    out[0] = __popc((unsigned)a);
// CHECK-NEXT:    wout[0] = llabs(w);
// CHECK-NEXT:    wout[0] = __clzll(w);
// CHECK-NEXT:    wout[0] = agpu_cttz(w);
// CHECK-NEXT:    wout[0] = __popcll((unsigned long long)w);
// CHECK-NEXT:  }
