// RUN: autogpu-opt %s -t cuda | filecheck %s

// addi/subi/muli/shli with overflow<nsw> print as C's signed operators (overflow undefined, as
// the flag says); without it they wrap, and print in the unsigned type of their width, so
// that the CUDA never overflows a signed int where the IR wraps (docs/ir.md).

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (i32, i32, i64, memref<?xi32>, memref<?xi64>, memref<?xf32>) -> (), kernel}> ({
    ^bb0(%a: i32, %b: i32, %w: i64, %out: memref<?xi32>, %wide: memref<?xi64>, %f: memref<?xf32>):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c7 = arith.constant 7 : i32
      %s0 = arith.addi %a, %b overflow<nsw> : i32
      memref.store %s0, %out[%c0] : memref<?xi32>
      %u0 = arith.addi %a, %b : i32
      memref.store %u0, %out[%c0] : memref<?xi32>
      %u1 = arith.subi %a, %b : i32
      memref.store %u1, %out[%c1] : memref<?xi32>
      %u2 = arith.muli %a, %b : i32
      memref.store %u2, %out[%c2] : memref<?xi32>
      %u3 = arith.shli %a, %b : i32
      memref.store %u3, %out[%c3] : memref<?xi32>
      %s3 = arith.shli %a, %b overflow<nsw> : i32
      memref.store %s3, %out[%c3] : memref<?xi32>
      // A 64-bit index truncated to int, then wrapping: (unsigned)w, never (int)w + 7.
      %t = arith.trunci %w : i64 to i32
      %u4 = arith.addi %t, %c7 : i32
      %x4 = arith.extui %u4 : i32 to i64
      %i4 = arith.index_cast %x4 : i64 to index
      memref.store %a, %out[%i4] : memref<?xi32>
      // A signed reading of a wrapping value converts it back.
      %lt = arith.cmpi slt, %u4, %b : i32
      %r = arith.sitofp %u4 : i32 to f32
      %sel = arith.select %lt, %r, %r : f32
      memref.store %sel, %f[%c0] : memref<?xf32>
      // 64-bit: wrapping on long long operands; operands of at most 32 bits cannot overflow.
      %u5 = arith.muli %w, %w : i64
      memref.store %u5, %wide[%c0] : memref<?xi64>
      %wa = arith.extsi %a : i32 to i64
      %wb = arith.extui %b : i32 to i64
      %s6 = arith.addi %wa, %wb : i64
      memref.store %s6, %wide[%c1] : memref<?xi64>
      %wc = arith.extui %a : i32 to i64
      %wd = arith.extui %b : i32 to i64
      %u7 = arith.muli %wc, %wd : i64
      memref.store %u7, %wide[%c2] : memref<?xi64>
      "gpu.return"() : () -> ()
    }) {sym_name = "overflow"} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: extern "C" __global__ void overflow(int a, int b, long long w, int *out, long long *wide, float *f) {
// CHECK-NEXT:    out[0] = a + b;
// CHECK-NEXT:    out[0] = (unsigned)a + b;
// CHECK-NEXT:    out[1] = (unsigned)a - b;
// CHECK-NEXT:    out[2] = (unsigned)a * b;
// CHECK-NEXT:    out[3] = (unsigned)a << b;
// CHECK-NEXT:    out[3] = a << b;
// CHECK-NEXT:    const int [[U4:.*]] = (unsigned)w + 7u;
// CHECK-NEXT:    out[(unsigned)[[U4]]] = a;
// CHECK-NEXT:    const float [[R:.*]] = (float)[[U4]];
// CHECK-NEXT:    f[0] = [[U4]] < b ? [[R]] : [[R]];
// CHECK-NEXT:    wide[0] = (unsigned long long)w * w;
// CHECK-NEXT:    wide[1] = (long long)a + (unsigned)b;
// CHECK-NEXT:    wide[2] = (unsigned long long)(unsigned)a * (unsigned)b;
