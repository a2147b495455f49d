// RUN: autogpu-opt %s --split-input-file -p gpu-optimize-guards | filecheck %s

// A guard invariant in a loop (the loop's other code is pure) is tested once, outside it; it
// climbs out of the whole nest. Its condition, computed inside, is computed before the loops.
func.func @nest(%A: memref<?xf32>, %i: i32, %n: i32, %p: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %k = %c0 to %p step %c1 : i32 {
    scf.for %l = %c0 to %p step %c1 : i32 {
      %kl = arith.addi %k, %l : i32
      %in = arith.cmpi slt, %i, %n : i32
      scf.if %in {
        %x = arith.index_cast %kl : i32 to index
        %v = arith.constant 1.0 : f32
        memref.store %v, %A[%x] : memref<?xf32>
      }
    }
  }
  func.return
}

// CHECK-LABEL: func.func @nest(
// CHECK: %[[IN:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: scf.for %[[K:.*]] = 
// CHECK-NEXT: scf.for %[[L:.*]] = 
// CHECK-NOT: scf.if
// CHECK: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }

// -----

// Not hoisted: a condition that changes with the loop, one that could trap if computed before
// the loop (division), a loop with an effect outside the guard, a guard with an else branch,
// a loop carrying a value.
func.func @kept(%A: memref<?xf32>, %i: i32, %n: i32, %p: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %v = arith.constant 1.0 : f32
  %z = arith.constant 0 : index
  scf.for %k = %c0 to %p step %c1 : i32 {
    %varying = arith.cmpi slt, %k, %n : i32
    scf.if %varying {
      memref.store %v, %A[%z] : memref<?xf32>
    }
  }
  scf.for %k = %c0 to %p step %c1 : i32 {
    %q = arith.divsi %i, %n : i32
    %trap = arith.cmpi slt, %q, %n : i32
    scf.if %trap {
      memref.store %v, %A[%z] : memref<?xf32>
    }
  }
  %in = arith.cmpi slt, %i, %n : i32
  scf.for %k = %c0 to %p step %c1 : i32 {
    memref.store %v, %A[%z] : memref<?xf32>
    scf.if %in {
      memref.store %v, %A[%z] : memref<?xf32>
    }
  }
  scf.for %k = %c0 to %p step %c1 : i32 {
    scf.if %in {
      memref.store %v, %A[%z] : memref<?xf32>
    } else {
      memref.store %v, %A[%z] : memref<?xf32>
    }
  }
  %r = scf.for %k = %c0 to %p step %c1 iter_args(%s = %v) -> (f32) : i32 {
    scf.if %in {
      memref.store %s, %A[%z] : memref<?xf32>
    }
    scf.yield %s : f32
  }
  func.return
}

// CHECK-LABEL: func.func @kept(
// CHECK: scf.for
// CHECK-NEXT: arith.cmpi slt
// CHECK-NEXT: scf.if
// CHECK: scf.for
// CHECK-NEXT: arith.divsi
// CHECK-NEXT: arith.cmpi slt
// CHECK-NEXT: scf.if
// CHECK: scf.for
// CHECK-NEXT: memref.store
// CHECK-NEXT: scf.if
// CHECK: scf.for
// CHECK-NEXT: scf.if
// CHECK: } else {
// CHECK: scf.for
// CHECK-NEXT: scf.if
