// RUN: autogpu-opt %s -t cuda | filecheck %s

// Float arith: operators, every cmpf predicate (unordered ones negate the opposite ordered
// comparison, which is true on NaN), min/max flavours and the conversions.

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (f32, f32, f64, i32, memref<?xf32>, memref<?xf64>, memref<?xi1>, memref<?xi32>) -> (), kernel}> ({
    ^bb0(%x: f32, %y: f32, %d: f64, %n: i32, %out: memref<?xf32>, %dout: memref<?xf64>, %flags: memref<?xi1>, %iout: memref<?xi32>):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %c6 = arith.constant 6 : index
      %c7 = arith.constant 7 : index
      %0 = arith.addf %x, %y : f32
      memref.store %0, %out[%c0] : memref<?xf32>
      %1 = arith.subf %x, %y : f32
      memref.store %1, %out[%c1] : memref<?xf32>
      %2 = arith.mulf %x, %y : f32
      memref.store %2, %out[%c2] : memref<?xf32>
      %3 = arith.divf %x, %y : f32
      memref.store %3, %out[%c3] : memref<?xf32>
      %4 = arith.negf %x : f32
      memref.store %4, %out[%c4] : memref<?xf32>
      %5 = arith.minnumf %x, %y : f32
      memref.store %5, %out[%c5] : memref<?xf32>
      %6 = arith.maxnumf %x, %y : f32
      memref.store %6, %out[%c6] : memref<?xf32>
      %7 = arith.minimumf %x, %y : f32
      memref.store %7, %out[%c7] : memref<?xf32>
      %8 = arith.maximumf %d, %d : f64
      memref.store %8, %dout[%c0] : memref<?xf64>
      %9 = arith.maxnumf %d, %d : f64
      memref.store %9, %dout[%c1] : memref<?xf64>
      // A float used where a double is wanted converts implicitly (exactly, as C does).
      %10 = arith.extf %x : f32 to f64
      %11 = arith.mulf %10, %d : f64
      memref.store %11, %dout[%c2] : memref<?xf64>
      %12 = arith.truncf %d : f64 to f32
      memref.store %12, %out[%c0] : memref<?xf32>
      %13 = arith.sitofp %n : i32 to f32
      memref.store %13, %out[%c1] : memref<?xf32>
      %14 = arith.uitofp %n : i32 to f64
      memref.store %14, %dout[%c3] : memref<?xf64>
      %15 = arith.fptosi %x : f32 to i32
      memref.store %15, %iout[%c0] : memref<?xi32>
      %16 = arith.fptoui %d : f64 to i32
      memref.store %16, %iout[%c1] : memref<?xi32>
      %17 = arith.bitcast %x : f32 to i32
      memref.store %17, %iout[%c2] : memref<?xi32>
      %18 = arith.bitcast %n : i32 to f32
      memref.store %18, %out[%c2] : memref<?xf32>
      %19 = arith.extf %x : f32 to f64
      %20 = arith.extf %y : f32 to f64
      %21 = arith.addf %19, %20 : f64
      memref.store %21, %dout[%c4] : memref<?xf64>
      %p0 = arith.cmpf false, %x, %y : f32
      memref.store %p0, %flags[%c0] : memref<?xi1>
      %p1 = arith.cmpf oeq, %x, %y : f32
      memref.store %p1, %flags[%c0] : memref<?xi1>
      %p2 = arith.cmpf ogt, %x, %y : f32
      memref.store %p2, %flags[%c0] : memref<?xi1>
      %p3 = arith.cmpf oge, %x, %y : f32
      memref.store %p3, %flags[%c0] : memref<?xi1>
      %p4 = arith.cmpf olt, %x, %y : f32
      memref.store %p4, %flags[%c0] : memref<?xi1>
      %p5 = arith.cmpf ole, %x, %y : f32
      memref.store %p5, %flags[%c0] : memref<?xi1>
      %p6 = arith.cmpf one, %x, %y : f32
      memref.store %p6, %flags[%c0] : memref<?xi1>
      %p7 = arith.cmpf ord, %x, %y : f32
      memref.store %p7, %flags[%c0] : memref<?xi1>
      %p8 = arith.cmpf ueq, %x, %y : f32
      memref.store %p8, %flags[%c0] : memref<?xi1>
      %p9 = arith.cmpf ugt, %x, %y : f32
      memref.store %p9, %flags[%c0] : memref<?xi1>
      %p10 = arith.cmpf uge, %x, %y : f32
      memref.store %p10, %flags[%c0] : memref<?xi1>
      %p11 = arith.cmpf ult, %x, %y : f32
      memref.store %p11, %flags[%c0] : memref<?xi1>
      %p12 = arith.cmpf ule, %x, %y : f32
      memref.store %p12, %flags[%c0] : memref<?xi1>
      %p13 = arith.cmpf une, %x, %y : f32
      memref.store %p13, %flags[%c0] : memref<?xi1>
      %p14 = arith.cmpf uno, %x, %y : f32
      memref.store %p14, %flags[%c0] : memref<?xi1>
      %p15 = arith.cmpf true, %x, %y : f32
      memref.store %p15, %flags[%c0] : memref<?xi1>
      // `one` mentions its operands twice: a computed operand gets a name first.
      %s = arith.addf %x, %y : f32
      %p16 = arith.cmpf one, %s, %y : f32
      memref.store %p16, %flags[%c1] : memref<?xi1>
      %v = arith.select %p16, %x, %y : f32
      memref.store %v, %out[%c3] : memref<?xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "float_ops"} : () -> ()
  }) : () -> ()
}

// CHECK:      static __device__ inline float agpu_minimum(float a, float b) {
// CHECK-NEXT:   return isnan(a) || isnan(b) ? a + b : a == b ? (signbit(a) ? a : b) : fminf(a, b);
// CHECK:      static __device__ inline double agpu_maximum(double a, double b) {
// CHECK-NEXT:   return isnan(a) || isnan(b) ? a + b : a == b ? (signbit(a) ? b : a) : fmax(a, b);

// CHECK-LABEL: extern "C" __global__ void float_ops(float x, float y, double d, int n, float *out, double *dout, bool *flags, int *iout) {
// CHECK-NEXT:    out[0] = x + y;
// CHECK-NEXT:    out[1] = x - y;
// CHECK-NEXT:    out[2] = x * y;
// CHECK-NEXT:    out[3] = x / y;
// CHECK-NEXT:    out[4] = -x;
// CHECK-NEXT:    out[5] = fminf(x, y);
// CHECK-NEXT:    out[6] = fmaxf(x, y);
// CHECK-NEXT:    out[7] = agpu_minimum(x, y);
// CHECK-NEXT:    dout[0] = agpu_maximum(d, d);
// CHECK-NEXT:    dout[1] = fmax(d, d);
// CHECK-NEXT:    dout[2] = x * d;
// CHECK-NEXT:    out[0] = (float)d;
// CHECK-NEXT:    out[1] = (float)n;
// CHECK-NEXT:    dout[3] = (double)(unsigned)n;
// CHECK-NEXT:    iout[0] = (int)x;
// CHECK-NEXT:    iout[1] = (unsigned)d;
// CHECK-NEXT:    iout[2] = __float_as_int(x);
// CHECK-NEXT:    out[2] = __int_as_float(n);
// CHECK-NEXT:    dout[4] = (double)x + y;
// CHECK-NEXT:    flags[0] = false;
// CHECK-NEXT:    flags[0] = x == y;
// CHECK-NEXT:    flags[0] = x > y;
// CHECK-NEXT:    flags[0] = x >= y;
// CHECK-NEXT:    flags[0] = x < y;
// CHECK-NEXT:    flags[0] = x <= y;
// CHECK-NEXT:    flags[0] = x < y || x > y;
// CHECK-NEXT:    flags[0] = !isnan(x) && !isnan(y);
// CHECK-NEXT:    flags[0] = !(x < y || x > y);
// CHECK-NEXT:    flags[0] = !(x <= y);
// CHECK-NEXT:    flags[0] = !(x < y);
// CHECK-NEXT:    flags[0] = !(x >= y);
// CHECK-NEXT:    flags[0] = !(x > y);
// CHECK-NEXT:    flags[0] = x != y;
// CHECK-NEXT:    flags[0] = isnan(x) || isnan(y);
// CHECK-NEXT:    flags[0] = true;
// CHECK-NEXT:    const float [[S:s]] = x + y;
// CHECK-NEXT:    const bool [[P:p16]] = [[S]] < y || [[S]] > y;
// CHECK-NEXT:    flags[1] = [[P]];
// CHECK-NEXT:    out[3] = [[P]] ? x : y;
// CHECK-NEXT:  }
