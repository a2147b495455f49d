// RUN: autogpu-opt %s --split-input-file -p gpu-optimize-guards | filecheck %s

// One test per condition rather than per statement: guards on the same condition with only pure
// code between them merge, also when the condition is computed twice alike (as the frontend does
// for `if (i < n) a[i] = 1; if (i < n) b[i] = 2;`).
func.func @merge(%a: memref<?xf32>, %b: memref<?xf32>, %i: i32, %n: i32) {
  %v = arith.constant 1.0 : f32
  %x = arith.index_cast %i : i32 to index
  %in = arith.cmpi slt, %i, %n : i32
  scf.if %in {
    memref.store %v, %a[%x] : memref<?xf32>
  }
  %in2 = arith.cmpi slt, %i, %n : i32
  %w = arith.addf %v, %v : f32
  scf.if %in2 {
    memref.store %w, %b[%x] : memref<?xf32>
  }
  scf.if %in {
    memref.store %w, %a[%x] : memref<?xf32>
  }
  func.return
}

// CHECK-LABEL: func.func @merge(
// CHECK: %[[IN:.*]] = arith.cmpi slt
// CHECK: %[[W:.*]] = arith.addf
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%{{.*}}]
// CHECK-NEXT: memref.store %[[W]], %{{.*}}[%{{.*}}]
// CHECK-NEXT: memref.store %[[W]], %{{.*}}[%{{.*}}]
// CHECK-NEXT: }
// CHECK-NEXT: func.return

// -----

// Not merged: different conditions, a store between the guards, conditions that read memory
// (the first guard may change what the second reads), an else branch.
func.func @kept(%a: memref<?xf32>, %i: i32, %n: i32) {
  %v = arith.constant 1.0 : f32
  %z = arith.constant 0 : index
  %in = arith.cmpi slt, %i, %n : i32
  %out = arith.cmpi sge, %i, %n : i32
  scf.if %in {
    memref.store %v, %a[%z] : memref<?xf32>
  }
  scf.if %out {
    memref.store %v, %a[%z] : memref<?xf32>
  }
  memref.store %v, %a[%z] : memref<?xf32>
  scf.if %out {
    memref.store %v, %a[%z] : memref<?xf32>
  }
  %l1 = memref.load %a[%z] : memref<?xf32>
  %p1 = arith.cmpf ogt, %l1, %v : f32
  scf.if %p1 {
    memref.store %v, %a[%z] : memref<?xf32>
  }
  %l2 = memref.load %a[%z] : memref<?xf32>
  %p2 = arith.cmpf ogt, %l2, %v : f32
  scf.if %p2 {
    memref.store %v, %a[%z] : memref<?xf32>
  }
  scf.if %p2 {
    memref.store %v, %a[%z] : memref<?xf32>
  } else {
    memref.store %v, %a[%z] : memref<?xf32>
  }
  func.return
}

// CHECK-LABEL: func.func @kept(
// CHECK-COUNT-6: scf.if
