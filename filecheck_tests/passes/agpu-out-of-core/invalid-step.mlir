// RUN: not autogpu-opt %s -p agpu-out-of-core 2>&1 | filecheck %s
// IR the frontend's race check would not let through: what agpu-out-of-core refuses by itself.
// A step other than 1.
func.func @stepped(%n: i32 {agpu.name = "n", agpu.ctype = "int"}, %y: memref<?xf32> {agpu.name = "y", agpu.ctype = "float"}) {
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %f = arith.constant 1.0 : f32
  agpu.parallel_for %i = %c0 to %n step %c2 : i32 {
    %0 = arith.index_cast %i : i32 to index
    memref.store %f, %y[%0] : memref<?xf32>
  }
  func.return
}
// CHECK: error: out-of-core: only a parallel loop of step 1 is split into parts
// CHECK-NOT: Traceback
