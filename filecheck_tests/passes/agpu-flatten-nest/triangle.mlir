// RUN: autogpu-opt %s --split-input-file -p 'agpu-flatten-nest{min_depth=2}' | filecheck %s

// A triangular pair is one factor of the flat space: `rows` non-empty rows of `first_len`,
// `first_len + 1`, ... iterations, `rows * first_len + rows (rows - 1) / 2` in all; the row of
// an index is estimated in double precision and corrected by one exact integer step each way.
// Input: hand-written C-level IR of `collapse(2)` triangles (int loops).

// for (i = 0; i < n; i++) for (j = 0; j < i; j++): row i has i iterations (row 0 is empty).
func.func @below(%n: i32, %A: memref<?xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
    agpu.parallel_for %j = %c0 to %i step %c1 : i32 {
      %t = arith.muli %i, %n : i32
      %e = arith.addi %t, %j : i32
      %x = arith.index_cast %e : i32 to index
      %v = arith.constant 1.0 : f32
      memref.store %v, %A[%x] : memref<?xf32>
    }
  }
  func.return
}

// CHECK-LABEL: func.func @below(
// CHECK:       %[[ONE:.*]] = arith.constant 1 : i64
// The first non-empty row: max(1 - alpha, 0) with alpha = 0 (row r has r iterations).
// CHECK:       %[[ROWS:rows]] = arith.maxsi
// CHECK-NEXT:  %[[RM1:.*]] = arith.subi %[[ROWS]], %[[ONE]] : i64
// CHECK-NEXT:  %[[PAIRS2:.*]] = arith.muli %[[ROWS]], %[[RM1]] : i64
// CHECK-NEXT:  %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-NEXT:  %[[PAIRS:.*]] = arith.divsi %[[PAIRS2]], %[[TWO]] : i64
// CHECK-NEXT:  %[[TOTAL:.*]] = arith.addi %[[ROWS]], %[[PAIRS]] : i64
// CHECK-NEXT:  agpu.parallel_for %[[P:.*]] = %{{.*}} to %[[TOTAL]] step %{{.*}} : i64 {
// CHECK:         %[[PF:.*]] = arith.uitofp %[[P]] : i64 to f64
// CHECK:         %[[ROOT:.*]] = math.sqrt %{{.*}} : f64
// CHECK:         %[[DEN:.*]] = arith.addf %[[ROOT]], %{{.*}} : f64
// CHECK:         %[[EST:.*]] = arith.divf %{{.*}}, %[[DEN]] : f64
// CHECK-NEXT:    %[[S0:.*]] = arith.fptosi %[[EST]] : f64 to i64
// CHECK:         %[[OVER:.*]] = arith.cmpi ugt, %{{.*}}, %[[P]] : i64
// CHECK:         %[[S1:.*]] = arith.select %[[OVER]], %{{.*}}, %[[S0]] : i64
// CHECK:         %[[UNDER:.*]] = arith.cmpi ule, %{{.*}}, %[[P]] : i64
// CHECK-NEXT:    %[[ROW:.*]] = arith.select %[[UNDER]], %{{.*}}, %[[S1]] : i64
// CHECK:         %[[OFF:.*]] = arith.subi %[[P]], %{{.*}} : i64
// CHECK-NEXT:    %[[R:.*]] = arith.addi %{{.*}}, %[[ROW]] : i64
// CHECK-NEXT:    %[[I:.*]] = arith.trunci %[[R]] : i64 to i32
// CHECK-NEXT:    %[[J:.*]] = arith.trunci %[[OFF]] : i64 to i32
// CHECK-NEXT:    %[[T:.*]] = arith.muli %[[I]], %n : i32
// CHECK-NEXT:    arith.addi %[[T]], %[[J]] : i32
// CHECK-NOT:     agpu.parallel_for

// -----

// for (i = 0; i < n; i++) for (j = i; j < n; j++): shrinking rows, row i has n - i; with
// n = 70000 compiled in, the total (2,450,035,000) exceeds 2^31 - 1: the index is an i64.
func.func @above(%A: memref<?xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %n = arith.constant 70000 : i32
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
    agpu.parallel_for %j = %i to %n step %c1 : i32 {
      %t = arith.muli %i, %n : i32
      %e = arith.addi %t, %j : i32
      %x = arith.index_cast %e : i32 to index
      %v = arith.constant 1.0 : f32
      memref.store %v, %A[%x] : memref<?xf32>
    }
  }
  func.return
}

// CHECK-LABEL: func.func @above(
// CHECK:       %[[TOTAL:.*]] = arith.constant 2450035000 : i64
// CHECK-NEXT:  agpu.parallel_for %[[P:.*]] = %{{.*}} to %[[TOTAL]] step %{{.*}} : i64 {
// CHECK:         %[[ROW:row]] = arith.select
// CHECK:         %[[OFF:.*]] = arith.subi %[[P]], %{{.*}} : i64
// Rows are taken from the shortest: i = (rows - 1) - row.
// CHECK-NEXT:    %[[LAST:.*]] = arith.constant 69999 : i64
// CHECK-NEXT:    %[[R:.*]] = arith.subi %[[LAST]], %[[ROW]] : i64
// CHECK-NEXT:    %[[I:.*]] = arith.trunci %[[R]] : i64 to i32
// CHECK-NEXT:    %[[U:.*]] = arith.trunci %[[OFF]] : i64 to i32
// CHECK-NEXT:    %[[J:.*]] = arith.addi %[[I]], %[[U]] : i32
// CHECK-NEXT:    %[[T:.*]] = arith.muli %[[I]], %n : i32
// CHECK-NEXT:    arith.addi %[[T]], %[[J]] : i32

// -----

// for (i = 0; i < 100; i++) for (j = 0; j <= i; j++): 5050 iterations, an i32 index.
func.func @small(%A: memref<?xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %n = arith.constant 100 : i32
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
    %up = arith.addi %i, %c1 : i32
    agpu.parallel_for %j = %c0 to %up step %c1 : i32 {
      %t = arith.muli %i, %n : i32
      %e = arith.addi %t, %j : i32
      %x = arith.index_cast %e : i32 to index
      %v = arith.constant 1.0 : f32
      memref.store %v, %A[%x] : memref<?xf32>
    }
  }
  func.return
}

// CHECK-LABEL: func.func @small(
// CHECK:       %[[TOTAL:.*]] = arith.constant 5050 : i32
// CHECK:       agpu.parallel_for %[[P:.*]] = %{{.*}} to %[[TOTAL]] step %{{.*}} : i32 {
// CHECK:         arith.uitofp %[[P]] : i32 to f64
// CHECK:         arith.cmpi ule, %{{.*}}, %[[P]] : i32
// CHECK-NEXT:    %[[I:.*]] = arith.select %{{.*}} : i32
// CHECK-NEXT:    %{{.*}} = arith.shrui %[[I]]
// CHECK-NOT:     agpu.parallel_for
