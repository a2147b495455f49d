// RUN: autogpu-opt %s -p 'agpu-unroll-serial{loops=c factor=2}' | filecheck %s

// A loop chosen by name: the serial c loop only.
// Input: autogpu-opt on
//   void row_sums(int rows, int n, const double *restrict a, double *restrict sums) {
//   #pragma omp parallel for
//     for (int r = 0; r < rows; r++)
//       for (int c = 0; c < n; c++)
//         sums[r] += a[r * n + c];
//   }
// CHECK-LABEL: func.func @row_sums
// CHECK: agpu.parallel_for
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK: arith.addi %[[C]], %{{.*}} : i32
// CHECK: }
// CHECK-NEXT: scf.for
func.func @row_sums(%rows: i32 {agpu.name = "rows", agpu.ctype = "int"}, %n: i32 {agpu.name = "n", agpu.ctype = "int"}, %a: memref<?xf64> {agpu.name = "a", agpu.ctype = "double", agpu.const, agpu.restrict}, %sums: memref<?xf64> {agpu.name = "sums", agpu.ctype = "double", agpu.restrict}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %r = %c0 to %rows step %c1 : i32 {
    %c0_1 = arith.constant 0 : i32
    %c1_1 = arith.constant 1 : i32
    scf.for %c = %c0_1 to %n step %c1_1 : i32 {
      %0 = arith.index_cast %r : i32 to index
      %1 = memref.load %sums[%0] : memref<?xf64>
      %2 = arith.muli %r, %n : i32
      %3 = arith.addi %2, %c : i32
      %4 = arith.index_cast %3 : i32 to index
      %5 = memref.load %a[%4] : memref<?xf64>
      %6 = arith.addf %1, %5 : f64
      memref.store %6, %sums[%0] : memref<?xf64>
    }
  }
  func.return
}
