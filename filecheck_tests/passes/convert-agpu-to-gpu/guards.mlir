// RUN: autogpu-opt %s --split-input-file -p convert-agpu-to-gpu | filecheck %s
// RUN: autogpu-opt %s --split-input-file -p 'convert-agpu-to-gpu{block_size=32 block_y=2}' | filecheck %s --check-prefix=BLOCK2D

// Guards the launch grid makes unnecessary are not emitted (AutoGPU 2.3.5): with constant
// sizes the host launches exactly ceil(count / (block * unroll)) blocks, so a count that divides
// block * unroll needs no guard at all, and a y loop whose grid fits in one pass (<= 65535
// blocks) needs no grid-stride loop.

// 1024 = 2 * 256 * 2: no guard, no split, one jammed copy.
func.func @exact_x(%A: memref<?xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %n = arith.constant 1024 : i32
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 unroll 2 {
    %ii = arith.index_cast %i : i32 to index
    %v = memref.load %A[%ii] : memref<?xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %A[%ii] : memref<?xf32>
  }
  func.return
}

// CHECK-LABEL: "gpu.func"()
// CHECK-NOT: scf.if
// CHECK-NOT: arith.cmpi
// CHECK: memref.store
// CHECK-NEXT: memref.store
// CHECK-NEXT: "gpu.return"

// BLOCK2D-LABEL: "gpu.func"()
// BLOCK2D-NOT: scf.if
// BLOCK2D: "gpu.return"

// -----

// 1000 is not a multiple of 512: the full-tile test remains. Replica 0 of every thread is in
// range (at most 767 with two blocks), so the rest runs it without a guard.
func.func @ragged_x(%A: memref<?xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %n = arith.constant 1000 : i32
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 unroll 2 {
    %ii = arith.index_cast %i : i32 to index
    %v = memref.load %A[%ii] : memref<?xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %A[%ii] : memref<?xf32>
  }
  func.return
}

// CHECK-LABEL: "gpu.func"()
// CHECK: %[[FULL:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : index
// CHECK-NEXT: scf.if %[[FULL]] {
// CHECK: } else {
// CHECK-NOT: scf.if
// CHECK: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: "gpu.return"

// With blocks of 32 too: 1000 = 15 * 64 + 40 > 15 * 64 + 31.
// BLOCK2D-LABEL: "gpu.func"()
// BLOCK2D: %[[FULL:.*]] = arith.cmpi slt
// BLOCK2D-NEXT: scf.if %[[FULL]] {
// BLOCK2D: } else {
// BLOCK2D-NOT: scf.if
// BLOCK2D: "gpu.return"

// -----

// 600 = 512 + 88 (and 9 * 64 + 24): replica 0 of the last block's upper threads is out of range.
func.func @short_x(%A: memref<?xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %n = arith.constant 600 : i32
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 unroll 2 {
    %ii = arith.index_cast %i : i32 to index
    %v = memref.load %A[%ii] : memref<?xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %A[%ii] : memref<?xf32>
  }
  func.return
}

// CHECK-LABEL: "gpu.func"()
// CHECK: %[[FULL:.*]] = arith.cmpi slt
// CHECK-NEXT: scf.if %[[FULL]] {
// CHECK: } else {
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt
// CHECK-NEXT: scf.if %[[IN]] {

// BLOCK2D-LABEL: "gpu.func"()
// BLOCK2D: } else {
// BLOCK2D-NEXT: %[[IN:.*]] = arith.cmpi slt
// BLOCK2D-NEXT: scf.if %[[IN]] {

// -----

// Without unrolling: 1024 = 4 * 256 needs no guard; on y, 2048 rows with blocks of one row fit
// one grid pass: j = blockIdx.y, no loop, no guard.
func.func @exact_2d(%A: memref<?xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m = arith.constant 1024 : i32
  %n = arith.constant 2048 : i32
  agpu.parallel_for %j = %c0 to %n step %c1 : i32 {
    agpu.parallel_for %i = %c0 to %m step %c1 : i32 {
      %jm = arith.muli %j, %m : i32
      %c = arith.addi %jm, %i : i32
      %ii = arith.index_cast %c : i32 to index
      %v = arith.constant 1.0 : f32
      memref.store %v, %A[%ii] : memref<?xf32>
    }
  }
  func.return
}

// CHECK-LABEL: "gpu.func"()
// CHECK: %[[BY:.*]] = "gpu.block_id"() <{dimension = #gpu<dim y>}>
// CHECK-NOT: "gpu.grid_dim"
// CHECK-NOT: scf.for
// CHECK-NOT: scf.if
// CHECK: %[[J:.*]] = arith.index_cast %[[BY]] : index to i32
// CHECK-NOT: scf.if
// CHECK: "gpu.return"

// 2048 rows in blocks of 2 rows, 1024 columns in blocks of 32: still exact.
// BLOCK2D-LABEL: "gpu.func"()
// BLOCK2D-NOT: scf.for
// BLOCK2D-NOT: scf.if
// BLOCK2D: "gpu.return"

// -----

// 1000 x 5 rows: x needs its guard; one row per block needs none on y (blockIdx.y < 5 always),
// but with blocks of 2 rows the third block's second row is out of range.
func.func @ragged_2d(%A: memref<?xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m = arith.constant 1000 : i32
  %n = arith.constant 5 : i32
  agpu.parallel_for %j = %c0 to %n step %c1 : i32 {
    agpu.parallel_for %i = %c0 to %m step %c1 : i32 {
      %jm = arith.muli %j, %m : i32
      %c = arith.addi %jm, %i : i32
      %ii = arith.index_cast %c : i32 to index
      %v = arith.constant 1.0 : f32
      memref.store %v, %A[%ii] : memref<?xf32>
    }
  }
  func.return
}

// CHECK-LABEL: "gpu.func"()
// CHECK-NOT: scf.for
// CHECK: %[[IN:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NOT: scf.if
// CHECK: "gpu.return"

// BLOCK2D-LABEL: "gpu.func"()
// BLOCK2D-NOT: scf.for
// BLOCK2D: %[[JIN:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : index
// BLOCK2D-NEXT: scf.if %[[JIN]] {
// BLOCK2D: %[[IIN:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : index
// BLOCK2D-NEXT: scf.if %[[IIN]] {
// BLOCK2D: "gpu.return"

// -----

// 2000000 rows exceed one grid pass (65535 blocks of 8 rows): the grid-stride loop stays; every tile it
// visits is full (2000000 = 8 * 250000), so no guard inside.
func.func @tall(%A: memref<?xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m = arith.constant 256 : i32
  %n = arith.constant 2000000 : i32
  agpu.parallel_for %j = %c0 to %n step %c1 : i32 unroll 8 {
    agpu.parallel_for %i = %c0 to %m step %c1 : i32 {
      %jm = arith.muli %j, %m : i32
      %c = arith.addi %jm, %i : i32
      %ii = arith.index_cast %c : i32 to index
      %v = arith.constant 1.0 : f32
      memref.store %v, %A[%ii] : memref<?xf32>
    }
  }
  func.return
}

// CHECK-LABEL: "gpu.func"()
// CHECK: "gpu.grid_dim"() <{dimension = #gpu<dim y>}>
// CHECK: scf.for
// CHECK-NOT: scf.if
// CHECK-COUNT-8: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: "gpu.return"
// CHECK-LABEL: func.func @tall(
// CHECK: arith.constant 65535 : index

// BLOCK2D-LABEL: "gpu.func"()
// BLOCK2D: scf.for
// BLOCK2D-NOT: scf.if
// BLOCK2D: "gpu.return"
