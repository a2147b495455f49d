// RUN: not autogpu-opt %s -p convert-agpu-to-gpu 2>&1 | filecheck %s --check-prefix=ARRAY
// RUN: sed -e '/ARRAY-SECTION-BEGIN/,/ARRAY-SECTION-END/d' %s | not autogpu-opt -p convert-agpu-to-gpu 2>&1 | filecheck %s --check-prefix=BOOL

// The reductions the lowering refuses are reported at their loop, with its location (the
// second RUN line drops the first function).

// ARRAY-SECTION-BEGIN
func.func @array_reduction(%n: i32, %lo: index, %len: index) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %h = memref.alloca() : memref<16xi32>
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 reduction(add %h[%lo : %len] : memref<16xi32>) {
  }
  func.return
}
// ARRAY-SECTION-END
// ARRAY: reduction-errors.mlir:12:3: error: the reduced array 'h' must be an array parameter of the function

func.func @bool_reduction(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ok = memref.alloca() : memref<i1>
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 reduction(land %ok : memref<i1>) {
  }
  func.return
}
// BOOL: stdin:{{[0-9]+}}:3: error: a 'land' reduction over a _Bool ('ok') is not lowered: the frontend writes a _Bool's reductions as 'and', 'or' or 'xor'
