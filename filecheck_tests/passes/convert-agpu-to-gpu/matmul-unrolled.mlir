// RUN: autogpu-opt %s -p convert-agpu-to-gpu | filecheck %s

// examples/matmul.c unrolled by agpu-unroll-parallel{x=2 y=8} (i on x, j on y): each thread
// computes 2 x 8 elements, so the grid is ceil(m / 512) x ceil(n / 8) blocks of 256 threads.
// Input: autogpu-opt examples/matmul.c -p 'agpu-unroll-parallel{x=2 y=8}'

// CHECK: scf.if %full_tile {
// CHECK-LABEL: func.func @matmul(
// CHECK: %[[X:.*]] = arith.constant 512 : index
// CHECK-NEXT: arith.ceildivsi %{{.*}}, %[[X]] : index
// CHECK: %[[Y:.*]] = arith.constant 8 : index
// CHECK-NEXT: arith.ceildivsi %{{.*}}, %[[Y]] : index
func.func @matmul(%A: memref<?xf32> {agpu.name = "A", agpu.ctype = "float"}, %B: memref<?xf32> {agpu.name = "B", agpu.ctype = "float", agpu.const}, %C: memref<?xf32> {agpu.name = "C", agpu.ctype = "float", agpu.const}, %m: i32 {agpu.name = "m", agpu.ctype = "int"}, %n: i32 {agpu.name = "n", agpu.ctype = "int"}, %p: i32 {agpu.name = "p", agpu.ctype = "int"}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %j = %c0 to %n step %c1 : i32 unroll 8 {
    %c0_1 = arith.constant 0 : i32
    %c1_1 = arith.constant 1 : i32
    agpu.parallel_for %i = %c0_1 to %m step %c1_1 : i32 unroll 2 {
      %c0_2 = arith.constant 0 : i32
      %c1_2 = arith.constant 1 : i32
      scf.for %k = %c0_2 to %p step %c1_2 : i32 {
        %0 = arith.muli %j, %m : i32
        %1 = arith.addi %i, %0 : i32
        %2 = arith.index_cast %1 : i32 to index
        %3 = memref.load %A[%2] : memref<?xf32>
        %4 = arith.muli %k, %m : i32
        %5 = arith.addi %i, %4 : i32
        %6 = arith.index_cast %5 : i32 to index
        %7 = memref.load %B[%6] : memref<?xf32>
        %8 = arith.muli %j, %p : i32
        %9 = arith.addi %k, %8 : i32
        %10 = arith.index_cast %9 : i32 to index
        %11 = memref.load %C[%10] : memref<?xf32>
        %12 = arith.mulf %7, %11 : f32
        %13 = arith.addf %3, %12 : f32
        memref.store %13, %A[%2] : memref<?xf32>
      }
    }
  }
  func.return
}
