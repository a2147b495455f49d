// RUN: autogpu-opt %s -p 'convert-agpu-to-gpu{block_size=6}' | filecheck %s

// Reductions: each thread accumulates into a private copy set to the operator's identity; the
// block combines the copies by a tree in shared memory (memory space 3) with a barrier after
// every step, executed by every thread (outside the guard); thread 0 folds the block's result
// into the variable in device memory with memref.atomic_rmw (kinds: MLIR's AtomicRMWKind,
// 6 = maxs, 12 = mulf). A block of 6 threads (not a power of two): steps 4, 2, 1, where
// step s combines the threads t < min(s, 6 - s).

func.func @imax(%x: memref<?xi32>, %out: memref<?xi32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %best = memref.alloca() : memref<i32>
  %prod = memref.alloca() : memref<f64>
  %lo = arith.constant -100 : i32
  memref.store %lo, %best[] : memref<i32>
  %f1 = arith.constant 1.0 : f64
  memref.store %f1, %prod[] : memref<f64>
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 reduction(max %best : memref<i32>, mul %prod : memref<f64>) {
    %ii = arith.index_cast %i : i32 to index
    %v = memref.load %x[%ii] : memref<?xi32>
    %b = memref.load %best[] : memref<i32>
    %nb = arith.maxsi %b, %v : i32
    memref.store %nb, %best[] : memref<i32>
    %p = memref.load %prod[] : memref<f64>
    %vf = arith.sitofp %v : i32 to f64
    %np = arith.mulf %p, %vf : f64
    memref.store %np, %prod[] : memref<f64>
  }
  %r = memref.load %best[] : memref<i32>
  %z = arith.constant 0 : index
  memref.store %r, %out[%z] : memref<?xi32>
  func.return
}

// CHECK-LABEL: "gpu.module"
// CHECK: "memref.global"() <{sym_name = "imax_best", type = memref<i32>, initial_value, sym_visibility = "private"}>
// CHECK-NEXT: "memref.global"() <{sym_name = "imax_prod", type = memref<f64>, initial_value, sym_visibility = "private"}>
// CHECK: sym_name = "imax_kernel0"

// CHECK: %[[BEST:.*]] = memref.get_global @imax_best : memref<i32>
// CHECK-NEXT: %[[BP:.*]] = memref.alloca() : memref<i32>
// CHECK-NEXT: %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK-NEXT: memref.store %[[MIN]], %[[BP]][] : memref<i32>
// CHECK-NEXT: %[[BS:.*]] = memref.alloca() : memref<6xi32, 3 : i32>
// CHECK-NEXT: %[[PROD:.*]] = memref.get_global @imax_prod : memref<f64>
// CHECK-NEXT: %[[PP:.*]] = memref.alloca() : memref<f64>
// CHECK-NEXT: %[[UNIT:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT: memref.store %[[UNIT]], %[[PP]][] : memref<f64>
// CHECK-NEXT: %[[PS:.*]] = memref.alloca() : memref<6xf64, 3 : i32>
// CHECK: %[[TX:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index

// the body updates the private copies only
// CHECK: scf.if %{{.*}} {
// CHECK: memref.load %[[BP]][] : memref<i32>
// CHECK: memref.store %{{.*}}, %[[BP]][] : memref<i32>
// CHECK: memref.load %[[PP]][] : memref<f64>
// CHECK: memref.store %{{.*}}, %[[PP]][] : memref<f64>
// CHECK-NEXT: }

// CHECK-NEXT: %[[B0:.*]] = memref.load %[[BP]][] : memref<i32>
// CHECK-NEXT: memref.store %[[B0]], %[[BS]][%[[TX]]] : memref<6xi32, 3 : i32>
// CHECK-NEXT: %[[P0:.*]] = memref.load %[[PP]][] : memref<f64>
// CHECK-NEXT: memref.store %[[P0]], %[[PS]][%[[TX]]] : memref<6xf64, 3 : i32>
// CHECK-NEXT: "gpu.barrier"() : () -> ()

// step 4: threads 0 and 1 combine with 4 and 5
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[A4:.*]] = arith.cmpi slt, %[[TX]], %[[C2]] : index
// CHECK-NEXT: scf.if %[[A4]] {
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[PARTNER:.*]] = arith.addi %[[TX]], %[[C4]] overflow<nsw> : index
// CHECK-NEXT: %[[MINE:.*]] = memref.load %[[BS]][%[[TX]]] : memref<6xi32, 3 : i32>
// CHECK-NEXT: %[[THEIRS:.*]] = memref.load %[[BS]][%[[PARTNER]]] : memref<6xi32, 3 : i32>
// CHECK-NEXT: %[[MAX:.*]] = arith.maxsi %[[MINE]], %[[THEIRS]] : i32
// CHECK-NEXT: memref.store %[[MAX]], %[[BS]][%[[TX]]] : memref<6xi32, 3 : i32>
// CHECK: arith.mulf
// CHECK: }
// CHECK-NEXT: "gpu.barrier"() : () -> ()
// step 2
// CHECK: arith.cmpi slt, %[[TX]], %{{.*}} : index
// CHECK: "gpu.barrier"() : () -> ()
// step 1
// CHECK: arith.cmpi slt, %[[TX]], %{{.*}} : index
// CHECK: "gpu.barrier"() : () -> ()
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[TX]], %[[ZERO]] : index
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[BT:.*]] = memref.load %[[BS]][%[[Z]]] : memref<6xi32, 3 : i32>
// CHECK-NEXT: "memref.atomic_rmw"(%[[BT]], %[[BEST]]) <{kind = 6 : i64}> : (i32, memref<i32>) -> i32
// CHECK-NEXT: %[[PT:.*]] = memref.load %[[PS]][%[[Z]]] : memref<6xf64, 3 : i32>
// CHECK-NEXT: "memref.atomic_rmw"(%[[PT]], %[[PROD]]) <{kind = 12 : i64}> : (f64, memref<f64>) -> f64
// CHECK-NEXT: }
// CHECK-NEXT: "gpu.return"() : () -> ()
// CHECK-NEXT: }) {sym_name = "imax_kernel1", gpu.known_block_size = array<i32: 6, 1, 1>
