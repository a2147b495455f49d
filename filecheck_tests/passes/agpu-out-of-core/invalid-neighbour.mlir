// RUN: not autogpu-opt %s -p agpu-out-of-core 2>&1 | filecheck %s
// IR the frontend's race check would not let through: what agpu-out-of-core refuses by itself.
// A part reading a row of y that the next part writes.
func.func @neighbour(%n: i32 {agpu.name = "n", agpu.ctype = "int"}, %y: memref<?xf32> {agpu.name = "y", agpu.ctype = "float"}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
    %0 = arith.index_cast %i : i32 to index
    %1 = arith.addi %i, %c1 : i32
    %2 = arith.index_cast %1 : i32 to index
    %3 = memref.load %y[%2] : memref<?xf32>
    memref.store %3, %y[%0] : memref<?xf32>
  }
  func.return
}
// CHECK: error: out-of-core: a part reads rows of 'y' that another part writes in the same nest
// CHECK-NOT: Traceback
