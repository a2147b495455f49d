// RUN: autogpu-opt %examples/saxpy.c | filecheck %s
// RUN: autogpu-opt %examples/saxpy.c | autogpu-opt | filecheck %s

// examples/saxpy.c at the C level: exactly the IR that docs/ir.md shows.
// CHECK-LABEL: func.func @saxpy(%n: i32 {agpu.name = "n", agpu.ctype = "int"}, %a: f32 {agpu.name = "a", agpu.ctype = "float"}, %x: memref<?xf32> {agpu.name = "x", agpu.ctype = "float", agpu.const, agpu.restrict}, %y: memref<?xf32> {agpu.name = "y", agpu.ctype = "float", agpu.restrict}) {
// CHECK-NEXT: %c0 = arith.constant 0 : i32
// CHECK-NEXT: %c1 = arith.constant 1 : i32
// CHECK-NEXT: agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
// CHECK-NEXT: %0 = arith.index_cast %i : i32 to index
// CHECK-NEXT: %1 = memref.load %x[%0] : memref<?xf32>
// CHECK-NEXT: %2 = arith.mulf %a, %1 : f32
// CHECK-NEXT: %3 = memref.load %y[%0] : memref<?xf32>
// CHECK-NEXT: %4 = arith.addf %2, %3 : f32
// CHECK-NEXT: memref.store %4, %y[%0] : memref<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: func.return
