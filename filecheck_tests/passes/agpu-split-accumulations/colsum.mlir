// RUN: autogpu-opt %s -p 'agpu-split-accumulations{walkers=64 assume_no_alias=true}' | filecheck %s
// RUN: autogpu-opt %s -p 'agpu-split-accumulations{walkers=64}' | filecheck %s --check-prefix=ALIAS
// RUN: autogpu-opt %s -p 'agpu-split-accumulations' | filecheck %s --check-prefix=ALIAS

// examples/reductions/colsum.c as the frontend gives it: out[j] = init first, then 64
// walkers (a parallel loop around the column loop) each summing rows w, w + 64, ... from the
// identity -0.0, combined into out[j] by one atomic add (kind 0: addf).
// CHECK-LABEL: func.func @colsum
// CHECK:      agpu.parallel_for %[[J0:.*]] = %{{.*}} to %n
// CHECK:        %[[INIT:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:        memref.store %[[INIT]], %[[S0:.*]][]
// CHECK-NOT:    scf.for
// CHECK:        %[[V0:.*]] = memref.load %[[S0]][]
// CHECK:        memref.store %[[V0]], %out[
// CHECK:      %[[WALKERS:.*]] = arith.constant 64 : index
// CHECK:      agpu.parallel_for %[[W:.*]] = %{{.*}} to %[[WALKERS]] step
// CHECK-NEXT:   agpu.parallel_for %[[J:.*]] = %{{.*}} to %n
// CHECK:          %[[ID:.*]] = arith.constant -0.000000e+00 : f32
// CHECK-NEXT:     memref.store %[[ID]], %[[S:.*]][]
// CHECK:          %[[WIDE_W:.*]] = arith.index_cast %[[W]] : index to i64
// CHECK-NEXT:     %[[OFF:.*]] = arith.muli %[[WIDE_W]], %{{.*}} : i64
// CHECK-NEXT:     %[[FIRST:.*]] = arith.addi %{{.*}}, %[[OFF]] : i64
// CHECK:          %[[STRIDE:.*]] = arith.muli %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:     scf.for %[[I:.*]] = %[[FIRST]] to %{{.*}} step %[[STRIDE]] : i64 {
// CHECK-NEXT:       %{{.*}} = arith.trunci %[[I]] : i64 to i32
// CHECK:            arith.addf
// CHECK:          %[[SHARE:.*]] = memref.load %[[S]][]
// CHECK:          "memref.atomic_rmw"(%[[SHARE]], %out, %{{.*}}) <{kind = 0 : i64}>
// CHECK-NOT:      memref.store %{{.*}}, %out

// A and out are not restrict: without assume_no_alias (or without walkers) nothing changes.
// ALIAS-LABEL: func.func @colsum
// ALIAS-NOT: atomic_rmw
// ALIAS-NOT: agpu.parallel_for %walker
builtin.module {
  func.func @colsum(%A: memref<?xf32> {agpu.name = "A", agpu.ctype = "float", agpu.const}, %out: memref<?xf32> {agpu.name = "out", agpu.ctype = "float"}, %n: i32 {agpu.name = "n", agpu.ctype = "int"}) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    agpu.parallel_for %j = %c0 to %n step %c1 : i32 {
      %cst = arith.constant 0.000000e+00 : f32
      %c0_1 = arith.constant 0 : i32
      %c1_1 = arith.constant 1 : i32
      %s = memref.alloca() : memref<f32>
      memref.store %cst, %s[] : memref<f32>
      scf.for %i = %c0_1 to %n step %c1_1 : i32 {
        %s_1 = memref.load %s[] : memref<f32>
        %0 = arith.extsi %i : i32 to i64
        %1 = arith.extsi %n : i32 to i64
        %2 = arith.muli %0, %1 overflow<nsw> : i64
        %3 = arith.extsi %j : i32 to i64
        %4 = arith.addi %2, %3 overflow<nsw> : i64
        %5 = arith.index_cast %4 : i64 to index
        %6 = memref.load %A[%5] : memref<?xf32>
        %7 = arith.addf %s_1, %6 : f32
        memref.store %7, %s[] : memref<f32>
      }
      %s_2 = memref.load %s[] : memref<f32>
      %8 = arith.index_cast %j : i32 to index
      memref.store %s_2, %out[%8] : memref<?xf32>
    }
    func.return
  }
}

