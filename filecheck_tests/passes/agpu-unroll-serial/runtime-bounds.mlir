// RUN: autogpu-opt %s --split-input-file -p agpu-unroll-serial | filecheck %s
// RUN: autogpu-opt %s --split-input-file -p 'agpu-unroll-serial{factor=2}' | filecheck %s --check-prefix=F2

// A loop with bounds known only at run time: a main loop of factor copies stepping by
// factor * step up to main_ub = lb + (trips - trips % factor) * step, then a remainder loop.
// CHECK-LABEL: func.func @saxpy_like
// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %c0, %n : i32
// CHECK-NEXT: %[[TRIPS:.*]] = arith.subi %n, %c0 : i32
// CHECK-NEXT: %[[F:.*]] = arith.constant 4 : i32
// CHECK-NEXT: %[[REM:.*]] = arith.remui %[[TRIPS]], %[[F]] : i32
// CHECK-NEXT: %[[MAIN:.*]] = arith.subi %[[TRIPS]], %[[REM]] : i32
// CHECK-NEXT: %[[END:.*]] = arith.addi %c0, %[[MAIN]] : i32
// CHECK-NEXT: %[[UB:.*]] = arith.select %[[RUNS]], %[[END]], %c0 : i32
// CHECK-NEXT: %[[STEP4:.*]] = arith.constant 4 : i32
// CHECK-NEXT: scf.for %[[K:.*]] = %c0 to %[[UB]] step %[[STEP4]] : i32 {
// CHECK-NEXT: arith.index_cast %[[K]] : i32 to index
// CHECK: %[[K1:.*]] = arith.addi %[[K]], %c1 overflow<nsw> : i32
// CHECK-NEXT: arith.index_cast %[[K1]] : i32 to index
// CHECK: %[[K2:.*]] = arith.addi %[[K1]], %c1 overflow<nsw> : i32
// CHECK: %[[K3:.*]] = arith.addi %[[K2]], %c1 overflow<nsw> : i32
// CHECK-NOT: arith.addi %{{.*}}, %c1 overflow<nsw> : i32
// CHECK: }
// CHECK-NEXT: scf.for %[[R:.*]] = %[[UB]] to %n step %c1 : i32 {
// CHECK-NEXT: arith.index_cast %[[R]] : i32 to index
// CHECK-NOT: arith.addi
// CHECK: }
// CHECK-NEXT: func.return

// F2-LABEL: func.func @saxpy_like
// F2: arith.constant 2 : i32
// F2: scf.for %[[K:.*]] = %c0 to %{{.*}} step %{{.*}} : i32 {
// F2: %[[K1:.*]] = arith.addi %[[K]], %c1 overflow<nsw> : i32
// F2-NOT: arith.addi %{{.*}}, %c1 : i32
// F2: }
// F2-NEXT: scf.for
func.func @saxpy_like(%x: memref<?xf32>, %y: memref<?xf32>, %n: i32, %a: f32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %k = %c0 to %n step %c1 : i32 {
    %0 = arith.index_cast %k : i32 to index
    %1 = memref.load %x[%0] : memref<?xf32>
    %2 = arith.mulf %a, %1 : f32
    memref.store %2, %y[%0] : memref<?xf32>
  }
  func.return
}

// -----

// A step that is not a constant: the trip count divides by it (unsigned; by 1 instead when
// the loop does not run, so that a zero step cannot fault), and the main step is step * factor.
// CHECK-LABEL: func.func @runtime_step
// CHECK: %[[RUNS:.*]] = arith.cmpi slt, %lb, %ub : i64
// CHECK-NEXT: %[[SPAN:.*]] = arith.subi %ub, %lb : i64
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-NEXT: %[[DIV:.*]] = arith.select %[[RUNS]], %s, %[[ONE]] : i64
// CHECK-NEXT: %[[SPAN1:.*]] = arith.subi %[[SPAN]], %[[ONE]] : i64
// CHECK-NEXT: %[[LAST:.*]] = arith.divui %[[SPAN1]], %[[DIV]] : i64
// CHECK-NEXT: %[[TRIPS:.*]] = arith.addi %[[LAST]], %[[ONE]] : i64
// CHECK: %[[UB:.*]] = arith.select %[[RUNS]], %{{.*}}, %lb : i64
// CHECK-NEXT: %[[F:.*]] = arith.constant 4 : i64
// CHECK-NEXT: %[[BIG:.*]] = arith.muli %s, %[[F]] : i64
// CHECK-NEXT: scf.for %[[K:.*]] = %lb to %[[UB]] step %[[BIG]] : i64 {
// CHECK: arith.addi %[[K]], %s overflow<nsw> : i64
// CHECK: scf.for %{{.*}} = %[[UB]] to %ub step %s : i64 {
func.func @runtime_step(%x: memref<?xf32>, %lb: i64, %ub: i64, %s: i64) {
  scf.for %k = %lb to %ub step %s : i64 {
    %0 = arith.index_cast %k : i64 to index
    %1 = memref.load %x[%0] : memref<?xf32>
    memref.store %1, %x[%0] : memref<?xf32>
  }
  func.return
}

// -----

// Loop-carried values thread through the copies and from the main into the remainder loop.
// CHECK-LABEL: func.func @iter_args
// CHECK: %[[MAIN:.*]] = scf.for %[[K:.*]] = %lb to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %init) -> (f32) {
// CHECK-NEXT: %[[X0:.*]] = memref.load %x[%[[K]]]
// CHECK-NEXT: %[[S0:.*]] = arith.addf %[[ACC]], %[[X0]] : f32
// CHECK-NEXT: %[[K1:.*]] = arith.addi %[[K]], %c3 overflow<nsw> : index
// CHECK-NEXT: %[[X1:.*]] = memref.load %x[%[[K1]]]
// CHECK-NEXT: %[[S1:.*]] = arith.addf %[[S0]], %[[X1]] : f32
// CHECK-NEXT: %[[K2:.*]] = arith.addi %[[K1]], %c3 overflow<nsw> : index
// CHECK-NEXT: %[[X2:.*]] = memref.load %x[%[[K2]]]
// CHECK-NEXT: %[[S2:.*]] = arith.addf %[[S1]], %[[X2]] : f32
// CHECK-NEXT: %[[K3:.*]] = arith.addi %[[K2]], %c3 overflow<nsw> : index
// CHECK-NEXT: %[[X3:.*]] = memref.load %x[%[[K3]]]
// CHECK-NEXT: %[[S3:.*]] = arith.addf %[[S2]], %[[X3]] : f32
// CHECK-NEXT: scf.yield %[[S3]] : f32
// CHECK: %[[REM:.*]] = scf.for %{{.*}} = %{{.*}} to %ub step %c3 iter_args(%{{.*}} = %[[MAIN]]) -> (f32) {
// CHECK: func.return %[[REM]] : f32
func.func @iter_args(%x: memref<?xf32>, %lb: index, %ub: index, %init: f32) -> f32 {
  %c3 = arith.constant 3 : index
  %r = scf.for %k = %lb to %ub step %c3 iter_args(%acc = %init) -> (f32) {
    %1 = memref.load %x[%k] : memref<?xf32>
    %2 = arith.addf %acc, %1 : f32
    scf.yield %2 : f32
  }
  func.return %r : f32
}

// -----

// By default only innermost serial loops are unrolled, inside parallel loops too.
// CHECK-LABEL: func.func @nest
// CHECK: agpu.parallel_for
// CHECK-NEXT: scf.for %v = %c0 to %t step %c1 : i32 {
// CHECK: scf.for %u = %c0 to %{{.*}} step %{{.*}} : i32 {
// CHECK: scf.for %{{.*}} = %{{.*}} to %t step %c1 : i32 {
func.func @nest(%x: memref<?xf32>, %t: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %i = %c0 to %t step %c1 : i32 {
    scf.for %v = %c0 to %t step %c1 : i32 {
      scf.for %u = %c0 to %t step %c1 : i32 {
        %0 = arith.addi %u, %v : i32
        %1 = arith.index_cast %0 : i32 to index
        %2 = memref.load %x[%1] : memref<?xf32>
        memref.store %2, %x[%1] : memref<?xf32>
      }
    }
  }
  func.return
}
