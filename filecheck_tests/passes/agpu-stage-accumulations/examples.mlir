// RUN: autogpu-opt %s --split-input-file -p 'agpu-stage-accumulations{assume_no_alias=true}' | filecheck %s --check-prefix=MM
// RUN: autogpu-opt %s --split-input-file -p agpu-stage-accumulations | filecheck %s --check-prefix=MM-DEFAULT
// RUN: autogpu-opt %s --split-input-file -p agpu-stage-accumulations | filecheck %s

// The examples as the frontend gives them to the pass.

// examples/matmul.c, the paper's mm_0 -> mm_1: A[i + j*m] lives in A_acc across the k loop.
// Input: autogpu-opt examples/matmul.c
// MM-LABEL: func.func @matmul
// MM: agpu.parallel_for %[[I:.*]] = {{.*}} {
// MM: %[[ACC:.*]] = memref.alloca() {{.*}}: memref<f32>
// MM: scf.if
// MM: memref.load %A[
// MM-NEXT: memref.store %{{.*}}, %[[ACC]][]
// MM-NEXT: scf.for %k =
// MM-NOT: %A[
// MM: }
// MM-NEXT: memref.load %[[ACC]][]
// MM-NEXT: memref.store %{{.*}}, %A[
// MM: // {{-----}}
// Without assume_no_alias, B and C may point into A: nothing is staged.
// MM-DEFAULT-LABEL: func.func @matmul
// MM-DEFAULT-NOT: _acc
// MM-DEFAULT: // {{-----}}
func.func @matmul(%A: memref<?xf32> {agpu.name = "A", agpu.ctype = "float"}, %B: memref<?xf32> {agpu.name = "B", agpu.ctype = "float", agpu.const}, %C: memref<?xf32> {agpu.name = "C", agpu.ctype = "float", agpu.const}, %m: i32 {agpu.name = "m", agpu.ctype = "int"}, %n: i32 {agpu.name = "n", agpu.ctype = "int"}, %p: i32 {agpu.name = "p", agpu.ctype = "int"}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %j = %c0 to %n step %c1 : i32 {
    %c0_1 = arith.constant 0 : i32
    %c1_1 = arith.constant 1 : i32
    agpu.parallel_for %i = %c0_1 to %m step %c1_1 : i32 {
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

// -----

// A restrict output is staged without the option (the loop is decreasing: the frontend's
// counter c_k runs up, c = n - 1 - c_k).
// Input: autogpu-opt on
//   void row_sums(int rows, int n, const double *restrict a, double *restrict sums) {
//   #pragma omp parallel for
//     for (int r = 0; r < rows; r++)
//       for (int c = n - 1; c >= 0; c--)
//         sums[r] += a[r * n + c];
//   }
// CHECK-LABEL: func.func @row_sums
// CHECK: agpu.parallel_for %[[R:.*]] = {{.*}} {
// CHECK: %[[ACC:.*]] = memref.alloca() {{.*}}: memref<f64>
// CHECK: scf.for
// CHECK-NOT: %sums[
// CHECK: }
// CHECK-NEXT: memref.load %[[ACC]][]
// CHECK-NEXT: memref.store %{{.*}}, %sums[
func.func @row_sums(%rows: i32 {agpu.name = "rows", agpu.ctype = "int"}, %n: i32 {agpu.name = "n", agpu.ctype = "int"}, %a: memref<?xf64> {agpu.name = "a", agpu.ctype = "double", agpu.const, agpu.restrict}, %sums: memref<?xf64> {agpu.name = "sums", agpu.ctype = "double", agpu.restrict}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %r = %c0 to %rows step %c1 : i32 {
    %c1_1 = arith.constant 1 : i32
    %c0_1 = arith.constant 0 : i32
    %0 = arith.subi %n, %c1_1 : i32
    %1 = arith.subi %0, %c0_1 : i32
    %2 = arith.addi %1, %c1_1 : i32
    scf.for %c_k = %c0_1 to %2 step %c1_1 : i32 {
      %c = arith.subi %0, %c_k : i32
      %3 = arith.index_cast %r : i32 to index
      %4 = memref.load %sums[%3] : memref<?xf64>
      %5 = arith.muli %r, %n : i32
      %6 = arith.addi %5, %c : i32
      %7 = arith.index_cast %6 : i32 to index
      %8 = memref.load %a[%7] : memref<?xf64>
      %9 = arith.addf %4, %8 : f64
      memref.store %9, %sums[%3] : memref<?xf64>
    }
  }
  func.return
}
