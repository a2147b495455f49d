// RUN: autogpu-opt %s -p agpu-stage-accumulations | filecheck %s
// RUN: autogpu-opt %s -p 'agpu-stage-accumulations{assume_no_alias=true}' | filecheck %s --check-prefix=NOALIAS

// examples/matmul.c at the C level. `const float *B` and `C` may point into A (C allows
// matmul(A, A, A, ...)), so by default the element of A is not staged; under assume_no_alias
// it is kept in A_acc across the k loop, loaded and written back only when the loop runs.

// CHECK-LABEL: func.func @matmul
// CHECK-NOT: memref.alloca
// CHECK: scf.for
// CHECK: memref.load %A
// CHECK: memref.store %{{.*}}, %A

// NOALIAS-LABEL: func.func @matmul
// NOALIAS: agpu.parallel_for %[[J:.*]] = {{.*}} {
// NOALIAS-NEXT: agpu.parallel_for %[[I:.*]] = {{.*}} {
// NOALIAS-NEXT: %[[ACC:.*]] = memref.alloca() {{.*}}: memref<f32>
// NOALIAS-NEXT: %[[RUNS:.*]] = arith.cmpi slt, %c0, %p : i32
// NOALIAS-NEXT: scf.if %[[RUNS]] {
// NOALIAS-NEXT: %[[JM:.*]] = arith.muli %[[J]], %m : i32
// NOALIAS-NEXT: %[[IDX:.*]] = arith.addi %[[I]], %[[JM]] : i32
// NOALIAS-NEXT: %[[IDXC:.*]] = arith.index_cast %[[IDX]] : i32 to index
// NOALIAS-NEXT: %[[INIT:.*]] = memref.load %A[%[[IDXC]]] : memref<?xf32>
// NOALIAS-NEXT: memref.store %[[INIT]], %[[ACC]][] : memref<f32>
// NOALIAS-NEXT: scf.for %k = %c0 to %p step %c1 : i32 {
// NOALIAS-NOT: %A[
// NOALIAS: %[[OLD:.*]] = memref.load %[[ACC]][] : memref<f32>
// NOALIAS-NEXT: %[[NEW:.*]] = arith.addf %[[OLD]], %{{.*}} : f32
// NOALIAS-NEXT: memref.store %[[NEW]], %[[ACC]][] : memref<f32>
// NOALIAS-NEXT: }
// NOALIAS-NEXT: %[[FINAL:.*]] = memref.load %[[ACC]][] : memref<f32>
// NOALIAS-NEXT: memref.store %[[FINAL]], %A[%[[IDXC]]] : memref<?xf32>
// NOALIAS-NEXT: }
func.func @matmul(%A: memref<?xf32> {agpu.name = "A", agpu.ctype = "float"},
                  %B: memref<?xf32> {agpu.name = "B", agpu.ctype = "float", agpu.const},
                  %C: memref<?xf32> {agpu.name = "C", agpu.ctype = "float", agpu.const},
                  %m: i32 {agpu.name = "m", agpu.ctype = "int"},
                  %n: i32 {agpu.name = "n", agpu.ctype = "int"},
                  %p: i32 {agpu.name = "p", agpu.ctype = "int"}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %j = %c0 to %n step %c1 : i32 {
    agpu.parallel_for %i = %c0 to %m step %c1 : i32 {
      scf.for %k = %c0 to %p step %c1 : i32 {
        %0 = arith.muli %k, %m : i32
        %1 = arith.addi %i, %0 : i32
        %2 = arith.index_cast %1 : i32 to index
        %3 = memref.load %B[%2] : memref<?xf32>
        %4 = arith.muli %j, %p : i32
        %5 = arith.addi %k, %4 : i32
        %6 = arith.index_cast %5 : i32 to index
        %7 = memref.load %C[%6] : memref<?xf32>
        %8 = arith.mulf %3, %7 : f32
        %9 = arith.muli %j, %m : i32
        %10 = arith.addi %i, %9 : i32
        %11 = arith.index_cast %10 : i32 to index
        %12 = memref.load %A[%11] : memref<?xf32>
        %13 = arith.addf %12, %8 : f32
        memref.store %13, %A[%11] : memref<?xf32>
      }
    }
  }
  func.return
}

// The same kernel with `float *restrict A`: staged without the option, because an element
// written through a restrict pointer is accessed through no other pointer.
// CHECK-LABEL: func.func @matmul_restrict
// CHECK: memref.alloca() {{.*}}: memref<f32>
// CHECK: scf.if
// CHECK: scf.for
// CHECK-NOT: memref.load %A[
// CHECK: }
// CHECK-NEXT: memref.load %A_acc
// CHECK-NEXT: memref.store %{{.*}}, %A[
func.func @matmul_restrict(%A: memref<?xf32> {agpu.name = "A", agpu.ctype = "float", agpu.restrict},
                  %B: memref<?xf32> {agpu.name = "B", agpu.ctype = "float", agpu.const},
                  %C: memref<?xf32> {agpu.name = "C", agpu.ctype = "float", agpu.const},
                  %m: i32 {agpu.name = "m", agpu.ctype = "int"},
                  %n: i32 {agpu.name = "n", agpu.ctype = "int"},
                  %p: i32 {agpu.name = "p", agpu.ctype = "int"}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %j = %c0 to %n step %c1 : i32 {
    agpu.parallel_for %i = %c0 to %m step %c1 : i32 {
      scf.for %k = %c0 to %p step %c1 : i32 {
        %0 = arith.muli %k, %m : i32
        %1 = arith.addi %i, %0 : i32
        %2 = arith.index_cast %1 : i32 to index
        %3 = memref.load %B[%2] : memref<?xf32>
        %4 = arith.muli %j, %p : i32
        %5 = arith.addi %k, %4 : i32
        %6 = arith.index_cast %5 : i32 to index
        %7 = memref.load %C[%6] : memref<?xf32>
        %8 = arith.mulf %3, %7 : f32
        %9 = arith.muli %j, %m : i32
        %10 = arith.addi %i, %9 : i32
        %11 = arith.index_cast %10 : i32 to index
        %12 = memref.load %A[%11] : memref<?xf32>
        %13 = arith.addf %12, %8 : f32
        memref.store %13, %A[%11] : memref<?xf32>
      }
    }
  }
  func.return
}
