// RUN: autogpu-opt %s -t cuda | filecheck %s

// memref.global in the gpu.module is a __device__ variable (__constant__ when constant), and
// memref.atomic_rmw a CUDA atomic: native where CUDA has one (through the unsigned view of the
// bits where it only has unsigned overloads), else a compare-and-swap loop in a helper.

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "memref.global"() <{sym_name = "fs", type = memref<f32>, initial_value, sym_visibility = "private"}> : () -> ()
    "memref.global"() <{sym_name = "ds", type = memref<f64>, initial_value, sym_visibility = "private"}> : () -> ()
    "memref.global"() <{sym_name = "is", type = memref<i32>, initial_value, sym_visibility = "private"}> : () -> ()
    "memref.global"() <{sym_name = "ls", type = memref<i64>, initial_value, sym_visibility = "private"}> : () -> ()
    "memref.global"() <{sym_name = "table", type = memref<4xf32>, initial_value = dense<[1.0, 2.5, -0.5, 4.0]> : tensor<4xf32>, sym_visibility = "private", constant}> : () -> ()
    "memref.global"() <{sym_name = "ones", type = memref<3xi32>, initial_value = dense<1> : tensor<3xi32>, sym_visibility = "private"}> : () -> ()
    "gpu.func"() <{function_type = (f32, f64, i32, i64, memref<?xi32>, memref<?xf32>) -> (), kernel}> ({
    ^bb0(%x: f32, %d: f64, %a: i32, %w: i64, %counts: memref<?xi32>, %out: memref<?xf32>):
      %fs = memref.get_global @fs : memref<f32>
      %ds = memref.get_global @ds : memref<f64>
      %is = memref.get_global @is : memref<i32>
      %ls = memref.get_global @ls : memref<i64>
      %table = memref.get_global @table : memref<4xf32>
      %c1 = arith.constant 1 : index
      %t = memref.load %table[%c1] : memref<4xf32>
      memref.store %t, %fs[] : memref<f32>
      %r_f32_addf = "memref.atomic_rmw"(%x, %fs) <{kind = 0 : i64}> : (f32, memref<f32>) -> f32
      %r_f32_assign = "memref.atomic_rmw"(%x, %fs) <{kind = 3 : i64}> : (f32, memref<f32>) -> f32
      %r_f32_maximumf = "memref.atomic_rmw"(%x, %fs) <{kind = 4 : i64}> : (f32, memref<f32>) -> f32
      %r_f32_maxnumf = "memref.atomic_rmw"(%x, %fs) <{kind = 5 : i64}> : (f32, memref<f32>) -> f32
      %r_f32_minimumf = "memref.atomic_rmw"(%x, %fs) <{kind = 8 : i64}> : (f32, memref<f32>) -> f32
      %r_f32_minnumf = "memref.atomic_rmw"(%x, %fs) <{kind = 9 : i64}> : (f32, memref<f32>) -> f32
      %r_f32_mulf = "memref.atomic_rmw"(%x, %fs) <{kind = 12 : i64}> : (f32, memref<f32>) -> f32
      %r_f64_addf = "memref.atomic_rmw"(%d, %ds) <{kind = 0 : i64}> : (f64, memref<f64>) -> f64
      %r_f64_assign = "memref.atomic_rmw"(%d, %ds) <{kind = 3 : i64}> : (f64, memref<f64>) -> f64
      %r_f64_maximumf = "memref.atomic_rmw"(%d, %ds) <{kind = 4 : i64}> : (f64, memref<f64>) -> f64
      %r_f64_maxnumf = "memref.atomic_rmw"(%d, %ds) <{kind = 5 : i64}> : (f64, memref<f64>) -> f64
      %r_f64_minimumf = "memref.atomic_rmw"(%d, %ds) <{kind = 8 : i64}> : (f64, memref<f64>) -> f64
      %r_f64_minnumf = "memref.atomic_rmw"(%d, %ds) <{kind = 9 : i64}> : (f64, memref<f64>) -> f64
      %r_f64_mulf = "memref.atomic_rmw"(%d, %ds) <{kind = 12 : i64}> : (f64, memref<f64>) -> f64
      %r_i32_addi = "memref.atomic_rmw"(%a, %is) <{kind = 1 : i64}> : (i32, memref<i32>) -> i32
      %r_i32_andi = "memref.atomic_rmw"(%a, %is) <{kind = 2 : i64}> : (i32, memref<i32>) -> i32
      %r_i32_assign = "memref.atomic_rmw"(%a, %is) <{kind = 3 : i64}> : (i32, memref<i32>) -> i32
      %r_i32_maxs = "memref.atomic_rmw"(%a, %is) <{kind = 6 : i64}> : (i32, memref<i32>) -> i32
      %r_i32_maxu = "memref.atomic_rmw"(%a, %is) <{kind = 7 : i64}> : (i32, memref<i32>) -> i32
      %r_i32_mins = "memref.atomic_rmw"(%a, %is) <{kind = 10 : i64}> : (i32, memref<i32>) -> i32
      %r_i32_minu = "memref.atomic_rmw"(%a, %is) <{kind = 11 : i64}> : (i32, memref<i32>) -> i32
      %r_i32_muli = "memref.atomic_rmw"(%a, %is) <{kind = 13 : i64}> : (i32, memref<i32>) -> i32
      %r_i32_ori = "memref.atomic_rmw"(%a, %is) <{kind = 14 : i64}> : (i32, memref<i32>) -> i32
      %r_i32_xori = "memref.atomic_rmw"(%a, %is) <{kind = 15 : i64}> : (i32, memref<i32>) -> i32
      %r_i64_addi = "memref.atomic_rmw"(%w, %ls) <{kind = 1 : i64}> : (i64, memref<i64>) -> i64
      %r_i64_andi = "memref.atomic_rmw"(%w, %ls) <{kind = 2 : i64}> : (i64, memref<i64>) -> i64
      %r_i64_assign = "memref.atomic_rmw"(%w, %ls) <{kind = 3 : i64}> : (i64, memref<i64>) -> i64
      %r_i64_maxs = "memref.atomic_rmw"(%w, %ls) <{kind = 6 : i64}> : (i64, memref<i64>) -> i64
      %r_i64_maxu = "memref.atomic_rmw"(%w, %ls) <{kind = 7 : i64}> : (i64, memref<i64>) -> i64
      %r_i64_mins = "memref.atomic_rmw"(%w, %ls) <{kind = 10 : i64}> : (i64, memref<i64>) -> i64
      %r_i64_minu = "memref.atomic_rmw"(%w, %ls) <{kind = 11 : i64}> : (i64, memref<i64>) -> i64
      %r_i64_muli = "memref.atomic_rmw"(%w, %ls) <{kind = 13 : i64}> : (i64, memref<i64>) -> i64
      %r_i64_ori = "memref.atomic_rmw"(%w, %ls) <{kind = 14 : i64}> : (i64, memref<i64>) -> i64
      %r_i64_xori = "memref.atomic_rmw"(%w, %ls) <{kind = 15 : i64}> : (i64, memref<i64>) -> i64
      %old = "memref.atomic_rmw"(%a, %counts, %c1) <{kind = 1 : i64}> : (i32, memref<?xi32>, index) -> i32
      %oldf = arith.sitofp %old : i32 to f32
      memref.store %oldf, %out[%c1] : memref<?xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "atomics"} : () -> ()
  }) : () -> ()
}

// Scalar helpers come before the atomic helpers that call them.
// CHECK:      static __device__ inline float agpu_minimum(float a, float b) {
// CHECK:      static __device__ inline float agpu_atomic_maximumf(float *address, float value) {
// CHECK-NEXT:   unsigned *bits = (unsigned *)address;
// CHECK-NEXT:   unsigned old = *bits, assumed;
// CHECK-NEXT:   do {
// CHECK-NEXT:     assumed = old;
// CHECK-NEXT:     const float current = __uint_as_float(assumed);
// CHECK-NEXT:     old = atomicCAS(bits, assumed, __float_as_uint(agpu_maximum(current, value)));
// CHECK-NEXT:   } while (assumed != old);
// CHECK-NEXT:   return __uint_as_float(old);
// CHECK-NEXT: }
// CHECK:      static __device__ inline long long agpu_atomic_muli(long long *address, long long value) {
// CHECK:          old = atomicCAS(bits, assumed, (unsigned long long)((unsigned long long)current * (unsigned long long)value));

// CHECK:      __device__ float fs;
// CHECK-NEXT: __device__ double ds;
// CHECK-NEXT: __device__ int is;
// CHECK-NEXT: __device__ long long ls;
// CHECK-NEXT: __constant__ float table[4] = {1.0f, 2.5f, -0.5f, 4.0f};
// CHECK-NEXT: __device__ int ones[3] = {1, 1, 1};

// CHECK-LABEL: extern "C" __global__ void atomics(float x, double d, int a, long long w, int *counts, float *out) {
// CHECK-NEXT:    fs = table[1];
// CHECK-NEXT:    atomicAdd(&fs, x);
// CHECK-NEXT:    atomicExch(&fs, x);
// CHECK-NEXT:    agpu_atomic_maximumf(&fs, x);
// CHECK-NEXT:    agpu_atomic_maxnumf(&fs, x);
// CHECK-NEXT:    agpu_atomic_minimumf(&fs, x);
// CHECK-NEXT:    agpu_atomic_minnumf(&fs, x);
// CHECK-NEXT:    agpu_atomic_mulf(&fs, x);
// CHECK-NEXT:    atomicAdd(&ds, d);
// CHECK-NEXT:    agpu_atomic_assign(&ds, d);
// CHECK-NEXT:    agpu_atomic_maximumf(&ds, d);
// CHECK-NEXT:    agpu_atomic_maxnumf(&ds, d);
// CHECK-NEXT:    agpu_atomic_minimumf(&ds, d);
// CHECK-NEXT:    agpu_atomic_minnumf(&ds, d);
// CHECK-NEXT:    agpu_atomic_mulf(&ds, d);
// CHECK-NEXT:    atomicAdd(&is, a);
// CHECK-NEXT:    atomicAnd(&is, a);
// CHECK-NEXT:    atomicExch(&is, a);
// CHECK-NEXT:    atomicMax(&is, a);
// CHECK-NEXT:    atomicMax((unsigned *)&is, (unsigned)a);
// CHECK-NEXT:    atomicMin(&is, a);
// CHECK-NEXT:    atomicMin((unsigned *)&is, (unsigned)a);
// CHECK-NEXT:    agpu_atomic_muli(&is, a);
// CHECK-NEXT:    atomicOr(&is, a);
// CHECK-NEXT:    atomicXor(&is, a);
// CHECK-NEXT:    atomicAdd((unsigned long long *)&ls, (unsigned long long)w);
// CHECK-NEXT:    atomicAnd((unsigned long long *)&ls, (unsigned long long)w);
// CHECK-NEXT:    atomicExch((unsigned long long *)&ls, (unsigned long long)w);
// CHECK-NEXT:    atomicMax(&ls, w);
// CHECK-NEXT:    atomicMax((unsigned long long *)&ls, (unsigned long long)w);
// CHECK-NEXT:    atomicMin(&ls, w);
// CHECK-NEXT:    atomicMin((unsigned long long *)&ls, (unsigned long long)w);
// CHECK-NEXT:    agpu_atomic_muli(&ls, w);
// CHECK-NEXT:    atomicOr((unsigned long long *)&ls, (unsigned long long)w);
// CHECK-NEXT:    atomicXor((unsigned long long *)&ls, (unsigned long long)w);
// The old value, when used, is named.
// CHECK-NEXT:    const int old = atomicAdd(&counts[1], a);
// CHECK-NEXT:    out[1] = (float)old;
// CHECK-NEXT:  }
