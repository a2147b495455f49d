// RUN: not autogpu-opt %s -p agpu-out-of-core 2>&1 | filecheck %s
// IR the frontend's race check would not let through: what agpu-out-of-core refuses by itself.
// Two rows written per iteration.
func.func @two_rows(%n: i32 {agpu.name = "n", agpu.ctype = "int"}, %y: memref<?xf32> {agpu.name = "y", agpu.ctype = "float"}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %f = arith.constant 1.0 : f32
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
    %0 = arith.index_cast %i : i32 to index
    %1 = arith.addi %i, %c1 : i32
    %2 = arith.index_cast %1 : i32 to index
    memref.store %f, %y[%0] : memref<?xf32>
    memref.store %f, %y[%2] : memref<?xf32>
  }
  func.return
}
// CHECK: error: out-of-core: an iteration writes two rows of 'y'
// CHECK-NOT: Traceback
