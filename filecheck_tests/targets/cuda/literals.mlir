// RUN: autogpu-opt %s -t cuda | filecheck %s

// Constants print as C literals of exactly their value: the shortest decimal that rounds back
// (hex where decimal cannot be proven to), `f` on floats, suffixes where a plain int would not
// hold the value, and the most negative integers spelled as limits.h does.

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, memref<?xf64>, memref<?xi32>, memref<?xi64>, memref<?xi1>, i32, i64) -> (), kernel}> ({
    ^bb0(%f: memref<?xf32>, %d: memref<?xf64>, %i: memref<?xi32>, %l: memref<?xi64>, %b: memref<?xi1>, %n: i32, %w: i64):
      %c0 = arith.constant 0 : index
      %f0 = arith.constant 1.5 : f32
      memref.store %f0, %f[%c0] : memref<?xf32>
      %f1 = arith.constant 0.1 : f32
      memref.store %f1, %f[%c0] : memref<?xf32>
      %f2 = arith.constant 1.0e+30 : f32
      memref.store %f2, %f[%c0] : memref<?xf32>
      %f3 = arith.constant 1.0 : f32
      memref.store %f3, %f[%c0] : memref<?xf32>
      %f4 = arith.constant -0.0 : f32
      memref.store %f4, %f[%c0] : memref<?xf32>
      %f5 = arith.constant 0x7F800000 : f32
      memref.store %f5, %f[%c0] : memref<?xf32>
      %f6 = arith.constant 0xFF800000 : f32
      memref.store %f6, %f[%c0] : memref<?xf32>
      %f7 = arith.constant 0x7FC00000 : f32
      memref.store %f7, %f[%c0] : memref<?xf32>
      %f8 = arith.constant 1.401298464324817e-45 : f32
      memref.store %f8, %f[%c0] : memref<?xf32>
      %f9 = arith.constant 3.4028234663852886e+38 : f32
      memref.store %f9, %f[%c0] : memref<?xf32>
      %f10 = arith.constant 16777217.0 : f32
      memref.store %f10, %f[%c0] : memref<?xf32>
      %d0 = arith.constant 0.1 : f64
      memref.store %d0, %d[%c0] : memref<?xf64>
      %d1 = arith.constant 2.0 : f64
      memref.store %d1, %d[%c0] : memref<?xf64>
      %d2 = arith.constant 1.0e+300 : f64
      memref.store %d2, %d[%c0] : memref<?xf64>
      %d3 = arith.constant 4.9406564584124654e-324 : f64
      memref.store %d3, %d[%c0] : memref<?xf64>
      %d4 = arith.constant 0xFFF0000000000000 : f64
      memref.store %d4, %d[%c0] : memref<?xf64>
      %d5 = arith.constant -1.25 : f64
      memref.store %d5, %d[%c0] : memref<?xf64>
      %i0 = arith.constant 42 : i32
      memref.store %i0, %i[%c0] : memref<?xi32>
      %i1 = arith.constant -2147483648 : i32
      memref.store %i1, %i[%c0] : memref<?xi32>
      %i2 = arith.constant 2147483647 : i32
      memref.store %i2, %i[%c0] : memref<?xi32>
      %i3 = arith.constant -7 : i32
      %i4 = arith.subi %n, %i3 overflow<nsw> : i32
      memref.store %i4, %i[%c0] : memref<?xi32>
      %i5 = arith.muli %n, %i1 overflow<nsw> : i32
      memref.store %i5, %i[%c0] : memref<?xi32>
      %l0 = arith.constant 4294967296 : i64
      memref.store %l0, %l[%c0] : memref<?xi64>
      %l1 = arith.constant -9223372036854775808 : i64
      memref.store %l1, %l[%c0] : memref<?xi64>
      %l2 = arith.constant 5 : i64
      %l3 = arith.addi %w, %l2 overflow<nsw> : i64
      memref.store %l3, %l[%c0] : memref<?xi64>
      %l4 = arith.divui %w, %l2 : i64
      memref.store %l4, %l[%c0] : memref<?xi64>
      %l5 = arith.maxsi %w, %l2 : i64
      memref.store %l5, %l[%c0] : memref<?xi64>
      %l6 = arith.shli %l2, %w overflow<nsw> : i64
      memref.store %l6, %l[%c0] : memref<?xi64>
      %u0 = arith.constant -1 : i32
      %u1 = arith.divui %n, %u0 : i32
      memref.store %u1, %i[%c0] : memref<?xi32>
      %t = arith.constant true
      memref.store %t, %b[%c0] : memref<?xi1>
      %fl = arith.constant false
      memref.store %fl, %b[%c0] : memref<?xi1>
      "gpu.return"() : () -> ()
    }) {sym_name = "literals"} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: extern "C" __global__ void literals(
// CHECK-NEXT:    f[0] = 1.5f;
// CHECK-NEXT:    f[0] = 0.1f;
// CHECK-NEXT:    f[0] = 1e+30f;
// CHECK-NEXT:    f[0] = 1.0f;
// CHECK-NEXT:    f[0] = -0.0f;
// CHECK-NEXT:    f[0] = (1.0f / 0.0f);
// CHECK-NEXT:    f[0] = -(1.0f / 0.0f);
// CHECK-NEXT:    f[0] = __builtin_nanf("");
// CHECK-NEXT:    f[0] = 1e-45f;
// CHECK-NEXT:    f[0] = 3.4028235e+38f;
// CHECK-NEXT:    f[0] = 16777216.0f;
// CHECK-NEXT:    d[0] = 0.1;
// CHECK-NEXT:    d[0] = 2.0;
// CHECK-NEXT:    d[0] = 1e+300;
// CHECK-NEXT:    d[0] = 5e-324;
// CHECK-NEXT:    d[0] = -(1.0 / 0.0);
// CHECK-NEXT:    d[0] = -1.25;
// CHECK-NEXT:    i[0] = 42;
// CHECK-NEXT:    i[0] = -2147483647 - 1;
// CHECK-NEXT:    i[0] = 2147483647;
// CHECK-NEXT:    i[0] = n - -7;
// CHECK-NEXT:    i[0] = n * (-2147483647 - 1);
// CHECK-NEXT:    l[0] = 4294967296LL;
// CHECK-NEXT:    l[0] = -9223372036854775807LL - 1;
// CHECK-NEXT:    l[0] = w + 5;
// CHECK-NEXT:    l[0] = (unsigned long long)w / 5ULL;
// CHECK-NEXT:    l[0] = max(w, 5LL);
// CHECK-NEXT:    l[0] = 5LL << w;
// CHECK-NEXT:    i[0] = (unsigned)n / 4294967295u;
// CHECK-NEXT:    b[0] = true;
// CHECK-NEXT:    b[0] = false;
// CHECK-NEXT:  }
