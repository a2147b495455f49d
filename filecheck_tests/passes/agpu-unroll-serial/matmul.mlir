// RUN: autogpu-opt %s -p 'agpu-unroll-serial{factor=4}' | filecheck %s

// mm_1 -> the paper's unrolled k loop: four accumulations into A_acc per iteration, and a
// remainder loop for p not divisible by 4.
// Input: autogpu-opt examples/matmul.c -p 'agpu-stage-accumulations{assume_no_alias=true}'
// CHECK-LABEL: func.func @matmul
// CHECK: %[[ACC:.*]] = memref.alloca() {{.*}}: memref<f32>
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %[[MAINUB:.*]] step %{{.*}} : i32 {
// CHECK-COUNT-4: memref.store %{{.*}}, %[[ACC]][]
// CHECK-NOT: memref.store
// CHECK: }
// CHECK-NEXT: scf.for %{{.*}} = %[[MAINUB]] to %p step
// CHECK: memref.store %{{.*}}, %[[ACC]][]
// CHECK-NEXT: }
func.func @matmul(%A: memref<?xf32> {agpu.name = "A", agpu.ctype = "float"}, %B: memref<?xf32> {agpu.name = "B", agpu.ctype = "float", agpu.const}, %C: memref<?xf32> {agpu.name = "C", agpu.ctype = "float", agpu.const}, %m: i32 {agpu.name = "m", agpu.ctype = "int"}, %n: i32 {agpu.name = "n", agpu.ctype = "int"}, %p: i32 {agpu.name = "p", agpu.ctype = "int"}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %j = %c0 to %n step %c1 : i32 {
    %c0_1 = arith.constant 0 : i32
    %c1_1 = arith.constant 1 : i32
    agpu.parallel_for %i = %c0_1 to %m step %c1_1 : i32 {
      %c0_2 = arith.constant 0 : i32
      %c1_2 = arith.constant 1 : i32
      %A_acc = memref.alloca() : memref<f32>
      %0 = arith.cmpi slt, %c0_2, %p : i32
      scf.if %0 {
        %1 = arith.muli %j, %m : i32
        %2 = arith.addi %i, %1 : i32
        %3 = arith.index_cast %2 : i32 to index
        %4 = memref.load %A[%3] : memref<?xf32>
        memref.store %4, %A_acc[] : memref<f32>
        scf.for %k = %c0_2 to %p step %c1_2 : i32 {
          %5 = memref.load %A_acc[] : memref<f32>
          %6 = arith.muli %k, %m : i32
          %7 = arith.addi %i, %6 : i32
          %8 = arith.index_cast %7 : i32 to index
          %9 = memref.load %B[%8] : memref<?xf32>
          %10 = arith.muli %j, %p : i32
          %11 = arith.addi %k, %10 : i32
          %12 = arith.index_cast %11 : i32 to index
          %13 = memref.load %C[%12] : memref<?xf32>
          %14 = arith.mulf %9, %13 : f32
          %15 = arith.addf %5, %14 : f32
          memref.store %15, %A_acc[] : memref<f32>
        }
        %16 = memref.load %A_acc[] : memref<f32>
        memref.store %16, %A[%3] : memref<?xf32>
      }
    }
  }
  func.return
}
