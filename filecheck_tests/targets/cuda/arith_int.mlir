// RUN: autogpu-opt %s -t cuda | filecheck %s

// Every integer arith op: signless ops print as C's signed operators (+ - * << when they carry
// overflow<nsw>; without it they wrap: overflow.mlir), unsigned ones compute on the unsigned
// view of their operands and the result keeps that type until a signed use.

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (i32, i32, i64, memref<?xi32>, memref<?xi64>, memref<?xi1>) -> (), kernel}> ({
    ^bb0(%a: i32, %b: i32, %w: i64, %out: memref<?xi32>, %wide: memref<?xi64>, %flags: memref<?xi1>):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %c6 = arith.constant 6 : index
      %c7 = arith.constant 7 : index
      %c8 = arith.constant 8 : index
      %c9 = arith.constant 9 : index
      %0 = arith.addi %a, %b overflow<nsw> : i32
      memref.store %0, %out[%c0] : memref<?xi32>
      %1 = arith.subi %a, %b overflow<nsw> : i32
      memref.store %1, %out[%c1] : memref<?xi32>
      %2 = arith.muli %a, %b overflow<nsw> : i32
      memref.store %2, %out[%c2] : memref<?xi32>
      %3 = arith.divsi %a, %b : i32
      memref.store %3, %out[%c3] : memref<?xi32>
      %4 = arith.remsi %a, %b : i32
      memref.store %4, %out[%c4] : memref<?xi32>
      %5 = arith.divui %a, %b : i32
      memref.store %5, %out[%c5] : memref<?xi32>
      %6 = arith.remui %a, %b : i32
      memref.store %6, %out[%c6] : memref<?xi32>
      %7 = arith.andi %a, %b : i32
      memref.store %7, %out[%c7] : memref<?xi32>
      %8 = arith.ori %a, %b : i32
      memref.store %8, %out[%c8] : memref<?xi32>
      %9 = arith.xori %a, %b : i32
      memref.store %9, %out[%c9] : memref<?xi32>
      %10 = arith.shli %a, %b overflow<nsw> : i32
      memref.store %10, %out[%c0] : memref<?xi32>
      %11 = arith.shrsi %a, %b : i32
      memref.store %11, %out[%c1] : memref<?xi32>
      %12 = arith.shrui %a, %b : i32
      memref.store %12, %out[%c2] : memref<?xi32>
      %13 = arith.minsi %a, %b : i32
      memref.store %13, %out[%c3] : memref<?xi32>
      %14 = arith.maxsi %a, %b : i32
      memref.store %14, %out[%c4] : memref<?xi32>
      %15 = arith.minui %a, %b : i32
      memref.store %15, %out[%c5] : memref<?xi32>
      %16 = arith.maxui %a, %b : i32
      memref.store %16, %out[%c6] : memref<?xi32>
      %17 = arith.ceildivsi %a, %b : i32
      memref.store %17, %out[%c7] : memref<?xi32>
      %18 = arith.floordivsi %a, %b : i32
      memref.store %18, %out[%c8] : memref<?xi32>
      %19 = arith.ceildivui %a, %b : i32
      memref.store %19, %out[%c9] : memref<?xi32>
      // An unsigned result used by a signed op is converted back.
      %20 = arith.divui %a, %b : i32
      %21 = arith.divsi %20, %b : i32
      memref.store %21, %out[%c0] : memref<?xi32>
      // ...while an unsigned chain stays unsigned.
      %22 = arith.remui %a, %b : i32
      %23 = arith.divui %22, %b : i32
      memref.store %23, %out[%c1] : memref<?xi32>
      // 64-bit, and the casts between widths.
      %24 = arith.extsi %a : i32 to i64
      %25 = arith.muli %24, %w overflow<nsw> : i64
      memref.store %25, %wide[%c0] : memref<?xi64>
      %26 = arith.extui %a : i32 to i64
      %27 = arith.addi %26, %w overflow<nsw> : i64
      memref.store %27, %wide[%c1] : memref<?xi64>
      %28 = arith.trunci %w : i64 to i32
      memref.store %28, %out[%c2] : memref<?xi32>
      %29 = arith.divui %w, %24 : i64
      memref.store %29, %wide[%c2] : memref<?xi64>
      %30 = arith.shrui %w, %24 : i64
      memref.store %30, %wide[%c3] : memref<?xi64>
      %31 = arith.index_cast %a : i32 to index
      %32 = arith.index_cast %31 : index to i64
      memref.store %32, %wide[%31] : memref<?xi64>
      // Comparisons, every predicate.
      %p0 = arith.cmpi eq, %a, %b : i32
      memref.store %p0, %flags[%c0] : memref<?xi1>
      %p1 = arith.cmpi ne, %a, %b : i32
      memref.store %p1, %flags[%c1] : memref<?xi1>
      %p2 = arith.cmpi slt, %a, %b : i32
      memref.store %p2, %flags[%c2] : memref<?xi1>
      %p3 = arith.cmpi sle, %a, %b : i32
      memref.store %p3, %flags[%c3] : memref<?xi1>
      %p4 = arith.cmpi sgt, %a, %b : i32
      memref.store %p4, %flags[%c4] : memref<?xi1>
      %p5 = arith.cmpi sge, %a, %b : i32
      memref.store %p5, %flags[%c5] : memref<?xi1>
      %p6 = arith.cmpi ult, %a, %b : i32
      memref.store %p6, %flags[%c6] : memref<?xi1>
      %p7 = arith.cmpi ule, %a, %b : i32
      memref.store %p7, %flags[%c7] : memref<?xi1>
      %p8 = arith.cmpi ugt, %a, %b : i32
      memref.store %p8, %flags[%c8] : memref<?xi1>
      %p9 = arith.cmpi uge, %a, %b : i32
      memref.store %p9, %flags[%c9] : memref<?xi1>
      // i1 logic, select, and i1 <-> integer casts.
      %q0 = arith.andi %p2, %p3 : i1
      %q1 = arith.ori %q0, %p4 : i1
      %true = arith.constant true
      %q2 = arith.xori %q1, %true : i1
      %q3 = arith.xori %q2, %p5 : i1
      memref.store %q3, %flags[%c0] : memref<?xi1>
      %s0 = arith.select %p0, %a, %b : i32
      memref.store %s0, %out[%c3] : memref<?xi32>
      %e0 = arith.extui %p1 : i1 to i32
      memref.store %e0, %out[%c4] : memref<?xi32>
      %e1 = arith.extsi %p1 : i1 to i32
      memref.store %e1, %out[%c5] : memref<?xi32>
      %t0 = arith.trunci %a : i32 to i1
      memref.store %t0, %flags[%c1] : memref<?xi1>
      // Truncation commutes with + - *: done in 32-bit unsigned arithmetic (which wraps) when
      // an operand is unsigned, else as a cast of the 64-bit result (int arithmetic could
      // overflow).
      %z0 = arith.extui %a : i32 to i64
      %z1 = arith.extui %b : i32 to i64
      %z2 = arith.muli %z0, %z1 overflow<nsw> : i64
      %z4 = arith.trunci %z2 : i64 to i32
      memref.store %z4, %out[%c6] : memref<?xi32>
      %y0 = arith.extui %a : i32 to i64
      %y1 = arith.addi %y0, %w overflow<nsw> : i64
      %y2 = arith.trunci %y1 : i64 to i32
      memref.store %y2, %out[%c7] : memref<?xi32>
      %s1 = arith.extsi %a : i32 to i64
      %s2 = arith.extsi %b : i32 to i64
      %s3 = arith.muli %s1, %s2 overflow<nsw> : i64
      %s4 = arith.trunci %s3 : i64 to i32
      memref.store %s4, %out[%c8] : memref<?xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "int_ops"} : () -> ()
  }) : () -> ()
}

// Helper device functions come first, only those used.
// CHECK:      static __device__ inline int agpu_floordiv(int a, int b) {
// CHECK:      static __device__ inline int agpu_ceildiv(int a, int b) {

// CHECK-LABEL: extern "C" __global__ void int_ops(int a, int b, long long w, int *out, long long *wide, bool *flags) {
// CHECK-NEXT:    out[0] = a + b;
// CHECK-NEXT:    out[1] = a - b;
// CHECK-NEXT:    out[2] = a * b;
// CHECK-NEXT:    out[3] = a / b;
// CHECK-NEXT:    out[4] = a % b;
// CHECK-NEXT:    out[5] = (unsigned)a / (unsigned)b;
// CHECK-NEXT:    out[6] = (unsigned)a % (unsigned)b;
// CHECK-NEXT:    out[7] = a & b;
// CHECK-NEXT:    out[8] = a | b;
// CHECK-NEXT:    out[9] = a ^ b;
// CHECK-NEXT:    out[0] = a << b;
// CHECK-NEXT:    out[1] = a >> b;
// CHECK-NEXT:    out[2] = (unsigned)a >> b;
// CHECK-NEXT:    out[3] = min(a, b);
// CHECK-NEXT:    out[4] = max(a, b);
// CHECK-NEXT:    out[5] = min((unsigned)a, (unsigned)b);
// CHECK-NEXT:    out[6] = max((unsigned)a, (unsigned)b);
// CHECK-NEXT:    out[7] = agpu_ceildiv(a, b);
// CHECK-NEXT:    out[8] = agpu_floordiv(a, b);
// CHECK-NEXT:    out[9] = agpu_ceildiv((unsigned)a, (unsigned)b);
// CHECK-NEXT:    out[0] = (int)((unsigned)a / (unsigned)b) / b;
// CHECK-NEXT:    out[1] = (unsigned)a % (unsigned)b / (unsigned)b;
// CHECK-NEXT:    wide[0] = a * w;
// CHECK-NEXT:    wide[1] = (unsigned)a + w;
// CHECK-NEXT:    out[2] = (int)w;
// CHECK-NEXT:    wide[2] = (unsigned long long)w / (unsigned long long)a;
// CHECK-NEXT:    wide[3] = (unsigned long long)w >> a;
// CHECK-NEXT:    wide[a] = a;
// CHECK-NEXT:    const bool p0 = a == b;
// CHECK-NEXT:    flags[0] = p0;
// CHECK-NEXT:    const bool p1 = a != b;
// CHECK-NEXT:    flags[1] = p1;
// CHECK-NEXT:    const bool p2 = a < b;
// CHECK-NEXT:    flags[2] = p2;
// CHECK-NEXT:    const bool p3 = a <= b;
// CHECK-NEXT:    flags[3] = p3;
// CHECK-NEXT:    const bool p4 = a > b;
// CHECK-NEXT:    flags[4] = p4;
// CHECK-NEXT:    const bool p5 = a >= b;
// CHECK-NEXT:    flags[5] = p5;
// CHECK-NEXT:    flags[6] = (unsigned)a < (unsigned)b;
// CHECK-NEXT:    flags[7] = (unsigned)a <= (unsigned)b;
// CHECK-NEXT:    flags[8] = (unsigned)a > (unsigned)b;
// CHECK-NEXT:    flags[9] = (unsigned)a >= (unsigned)b;
// CHECK-NEXT:    flags[0] = (!((p2 && p3) || p4)) != p5;
// CHECK-NEXT:    out[3] = p0 ? a : b;
// CHECK-NEXT:    out[4] = (int)p1;
// CHECK-NEXT:    out[5] = -(int)p1;
// CHECK-NEXT:    flags[1] = (a & 1) != 0;
// CHECK-NEXT:    out[6] = (unsigned)a * (unsigned)b;
// CHECK-NEXT:    out[7] = (int)((unsigned)a + w);
// CHECK-NEXT:    out[8] = (int)((long long)a * b);
// CHECK-NEXT:  }
