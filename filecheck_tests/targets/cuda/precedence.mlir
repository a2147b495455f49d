// RUN: autogpu-opt %s -t cuda | filecheck %s

// Inlined expressions get the parentheses C's grammar needs and no others, except the few that
// gcc's -Wparentheses asks for (`a << (b + c)`, `(a & b) == c`, `(a && b) || c`).

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (i32, i32, i32, f32, f32, memref<?xi32>, memref<?xf32>, memref<?xi1>) -> (), kernel}> ({
    ^bb0(%a: i32, %b: i32, %c: i32, %x: f32, %y: f32, %out: memref<?xi32>, %fout: memref<?xf32>, %flags: memref<?xi1>):
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      // a - (b - c), a - b - c
      %0 = arith.subi %b, %c overflow<nsw> : i32
      %1 = arith.subi %a, %0 overflow<nsw> : i32
      memref.store %1, %out[%c0] : memref<?xi32>
      %2 = arith.subi %a, %b overflow<nsw> : i32
      %3 = arith.subi %2, %c overflow<nsw> : i32
      memref.store %3, %out[%c0] : memref<?xi32>
      // (a + b) * c, a * b + c, a * (b / c), a * b / c
      %4 = arith.addi %a, %b overflow<nsw> : i32
      %5 = arith.muli %4, %c overflow<nsw> : i32
      memref.store %5, %out[%c0] : memref<?xi32>
      %6 = arith.muli %a, %b overflow<nsw> : i32
      %7 = arith.addi %6, %c overflow<nsw> : i32
      memref.store %7, %out[%c0] : memref<?xi32>
      %8 = arith.divsi %b, %c : i32
      %9 = arith.muli %a, %8 overflow<nsw> : i32
      memref.store %9, %out[%c0] : memref<?xi32>
      %10 = arith.muli %a, %b overflow<nsw> : i32
      %11 = arith.divsi %10, %c : i32
      memref.store %11, %out[%c0] : memref<?xi32>
      // a % (b + c) and (a % b) % c: the left-associative chain needs none
      %12 = arith.addi %b, %c overflow<nsw> : i32
      %13 = arith.remsi %a, %12 : i32
      memref.store %13, %out[%c0] : memref<?xi32>
      %14 = arith.remsi %a, %b : i32
      %15 = arith.remsi %14, %c : i32
      memref.store %15, %out[%c0] : memref<?xi32>
      // shifts and bitwise ops with arithmetic and comparisons
      %16 = arith.addi %b, %c overflow<nsw> : i32
      %17 = arith.shli %a, %16 overflow<nsw> : i32
      memref.store %17, %out[%c0] : memref<?xi32>
      %18 = arith.addi %a, %b overflow<nsw> : i32
      %19 = arith.shrsi %18, %c : i32
      memref.store %19, %out[%c0] : memref<?xi32>
      %20 = arith.andi %a, %b : i32
      %21 = arith.cmpi eq, %20, %c : i32
      memref.store %21, %flags[%c0] : memref<?xi1>
      %22 = arith.ori %a, %b : i32
      %23 = arith.xori %22, %c : i32
      %24 = arith.andi %23, %a : i32
      memref.store %24, %out[%c0] : memref<?xi32>
      // comparisons of comparisons, logic
      %25 = arith.cmpi slt, %a, %b : i32
      %26 = arith.cmpi slt, %b, %c : i32
      %27 = arith.cmpi eq, %25, %26 : i1
      memref.store %27, %flags[%c0] : memref<?xi1>
      %28 = arith.cmpi slt, %a, %b : i32
      %29 = arith.cmpi slt, %b, %c : i32
      %30 = arith.cmpi slt, %c, %a : i32
      %31 = arith.ori %29, %30 : i1
      %32 = arith.andi %28, %31 : i1
      memref.store %32, %flags[%c0] : memref<?xi1>
      // ternaries: as an operand, in a condition, in a chain
      %33 = arith.cmpi slt, %a, %b : i32
      %34 = arith.select %33, %a, %b : i32
      %35 = arith.addi %34, %one overflow<nsw> : i32
      memref.store %35, %out[%c0] : memref<?xi32>
      %36 = arith.cmpi slt, %a, %b : i32
      %37 = arith.cmpi slt, %b, %c : i32
      %gt_ac = arith.cmpi sgt, %a, %c : i32
      %38 = arith.select %36, %37, %gt_ac : i1
      %39 = arith.select %38, %a, %c : i32
      memref.store %39, %out[%c0] : memref<?xi32>
      %40 = arith.cmpi slt, %a, %b : i32
      %41 = arith.cmpi slt, %b, %c : i32
      %42 = arith.select %41, %b, %c : i32
      %43 = arith.select %40, %a, %42 : i32
      memref.store %43, %out[%c0] : memref<?xi32>
      // unary minus and casts
      %44 = arith.negf %x : f32
      %45 = arith.negf %44 : f32
      memref.store %45, %fout[%c0] : memref<?xf32>
      %m1 = arith.constant -1.0 : f32
      %46 = arith.negf %m1 : f32
      memref.store %46, %fout[%c0] : memref<?xf32>
      %47 = arith.subf %x, %m1 : f32
      memref.store %47, %fout[%c0] : memref<?xf32>
      %48 = arith.addf %x, %y : f32
      %49 = arith.negf %48 : f32
      memref.store %49, %fout[%c0] : memref<?xf32>
      %50 = arith.addi %a, %b overflow<nsw> : i32
      %51 = arith.sitofp %50 : i32 to f32
      memref.store %51, %fout[%c0] : memref<?xf32>
      %52 = arith.sitofp %a : i32 to f32
      %53 = arith.mulf %52, %x : f32
      memref.store %53, %fout[%c0] : memref<?xf32>
      %54 = arith.mulf %x, %y : f32
      %55 = arith.fptosi %54 : f32 to i32
      memref.store %55, %out[%c0] : memref<?xi32>
      // float evaluation order is kept: x + (y + x) is not x + y + x
      %56 = arith.addf %y, %x : f32
      %57 = arith.addf %x, %56 : f32
      memref.store %57, %fout[%c0] : memref<?xf32>
      %58 = arith.subf %x, %y : f32
      %59 = arith.subf %58, %x : f32
      memref.store %59, %fout[%c0] : memref<?xf32>
      %60 = arith.divf %x, %y : f32
      %61 = arith.divf %x, %60 : f32
      memref.store %61, %fout[%c0] : memref<?xf32>
      // calls take any expression as argument
      %62 = arith.addi %a, %b overflow<nsw> : i32
      %63 = arith.muli %b, %c overflow<nsw> : i32
      %64 = arith.maxsi %62, %63 : i32
      %65 = arith.muli %64, %c overflow<nsw> : i32
      memref.store %65, %out[%c0] : memref<?xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "precedence"} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: extern "C" __global__ void precedence(
// CHECK-NEXT:    out[0] = a - (b - c);
// CHECK-NEXT:    out[0] = a - b - c;
// CHECK-NEXT:    out[0] = (a + b) * c;
// CHECK-NEXT:    out[0] = a * b + c;
// CHECK-NEXT:    out[0] = a * (b / c);
// CHECK-NEXT:    out[0] = a * b / c;
// CHECK-NEXT:    out[0] = a % (b + c);
// CHECK-NEXT:    out[0] = a % b % c;
// CHECK-NEXT:    out[0] = a << (b + c);
// CHECK-NEXT:    out[0] = (a + b) >> c;
// CHECK-NEXT:    flags[0] = (a & b) == c;
// CHECK-NEXT:    out[0] = ((a | b) ^ c) & a;
// CHECK-NEXT:    flags[0] = (a < b) == (b < c);
// CHECK-NEXT:    flags[0] = a < b && (b < c || c < a);
// CHECK-NEXT:    out[0] = (a < b ? a : b) + 1;
// CHECK-NEXT:    out[0] = (a < b ? b < c : a > c) ? a : c;
// CHECK-NEXT:    out[0] = a < b ? a : b < c ? b : c;
// CHECK-NEXT:    fout[0] = -(-x);
// CHECK-NEXT:    fout[0] = -(-1.0f);
// CHECK-NEXT:    fout[0] = x - -1.0f;
// CHECK-NEXT:    fout[0] = -(x + y);
// CHECK-NEXT:    fout[0] = (float)(a + b);
// CHECK-NEXT:    fout[0] = (float)a * x;
// CHECK-NEXT:    out[0] = (int)(x * y);
// CHECK-NEXT:    fout[0] = x + (y + x);
// CHECK-NEXT:    fout[0] = x - y - x;
// CHECK-NEXT:    fout[0] = x / (x / y);
// CHECK-NEXT:    out[0] = max(a + b, b * c) * c;
// CHECK-NEXT:  }
