// RUN: autogpu-opt %s --split-input-file -p convert-agpu-to-gpu | filecheck %s

// A strided loop `for (i = lo; i < n; i += 3)`, AutoGPU 2.3.1.
// sparse (the default): thread t takes i = lo + t; threads off the stride idle.
func.func @sparse(%A: memref<?xf32>, %lo: i32, %n: i32) {
  %c3 = arith.constant 3 : i32
  agpu.parallel_for %i = %lo to %n step %c3 : i32 {
    %ii = arith.index_cast %i : i32 to index
    %v = arith.constant 1.0 : f32
    memref.store %v, %A[%ii] : memref<?xf32>
  }
  func.return
}

// CHECK: ^{{.*}}(%[[A:[^:]*]]: memref<?xf32>, %[[LO:[^:]*]]: i32, %[[N:[^:]*]]: i32):
// CHECK-NEXT: %[[LB:.*]] = arith.index_cast %[[LO]] : i32 to index
// CHECK-NEXT: %[[UB:.*]] = arith.index_cast %[[N]] : i32 to index
// CHECK-NEXT: %[[STEP:.*]] = arith.constant 3 : index
// CHECK: %[[GID:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[IDX:.*]] = arith.addi %[[LB]], %[[GID]] overflow<nsw> : index
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt, %[[IDX]], %[[UB]] : index
// CHECK-NEXT: %[[OFF:.*]] = arith.subi %[[IDX]], %[[LB]] overflow<nsw> : index
// CHECK-NEXT: %[[REM:.*]] = arith.remsi %[[OFF]], %[[STEP]] : index
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[ON:.*]] = arith.cmpi eq, %[[REM]], %[[ZERO]] : index
// CHECK-NEXT: %[[ACTIVE:.*]] = arith.andi %[[IN]], %[[ON]] : i1
// CHECK-NEXT: scf.if %[[ACTIVE]] {
// CHECK-NEXT: %[[I:.*]] = arith.index_cast %[[IDX]] : index to i32

// One thread per element of [lo, n): grid = ceildiv(n - lo, 256).
// CHECK-LABEL: func.func @sparse(
// CHECK-SAME: %{{[^:]*}}: memref<?xf32>, %[[HLO:[^:]*]]: i32, %[[HN:[^:]*]]: i32
// CHECK: %[[HLB:.*]] = arith.index_cast %[[HLO]] : i32 to index
// CHECK-NEXT: %[[HUB:.*]] = arith.index_cast %[[HN]] : i32 to index
// CHECK-NEXT: %[[COUNT:.*]] = arith.subi %[[HUB]], %[[HLB]] : index
// CHECK-NEXT: %[[BS:.*]] = arith.constant 256 : index
// CHECK-NEXT: %[[BLOCKS:.*]] = arith.ceildivsi %[[COUNT]], %[[BS]] : index
// CHECK-NEXT: %[[GX:.*]] = arith.maxsi %[[BLOCKS]], %{{.*}} : index
// CHECK-NEXT: "gpu.launch_func"(%[[GX]],

// -----

// dense: thread t takes i = lo + t * 3, no thread idles.
func.func @dense(%A: memref<?xf32>, %lo: i32, %n: i32) {
  %c3 = arith.constant 3 : i32
  agpu.parallel_for %i = %lo to %n step %c3 : i32 indexing dense {
    %ii = arith.index_cast %i : i32 to index
    %v = arith.constant 1.0 : f32
    memref.store %v, %A[%ii] : memref<?xf32>
  }
  func.return
}

// CHECK: ^{{.*}}(%[[A:[^:]*]]: memref<?xf32>, %[[LO:[^:]*]]: i32, %[[N:[^:]*]]: i32):
// CHECK-NEXT: %[[LB:.*]] = arith.index_cast %[[LO]] : i32 to index
// CHECK-NEXT: %[[UB:.*]] = arith.index_cast %[[N]] : i32 to index
// CHECK-NEXT: %[[STEP:.*]] = arith.constant 3 : index
// CHECK: %[[GID:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[SCALED:.*]] = arith.muli %[[GID]], %[[STEP]] overflow<nsw> : index
// CHECK-NEXT: %[[IDX:.*]] = arith.addi %[[LB]], %[[SCALED]] overflow<nsw> : index
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt, %[[IDX]], %[[UB]] : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %[[I:.*]] = arith.index_cast %[[IDX]] : index to i32
// CHECK-NOT: arith.remsi

// One thread per iteration: grid = ceildiv(ceildiv(n - lo, 3), 256).
// CHECK-LABEL: func.func @dense(
// CHECK: %[[COUNT:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[ITERS:.*]] = arith.ceildivsi %[[COUNT]], %{{.*}} : index
// CHECK-NEXT: %[[BS:.*]] = arith.constant 256 : index
// CHECK-NEXT: %[[BLOCKS:.*]] = arith.ceildivsi %[[ITERS]], %[[BS]] : index
// CHECK-NEXT: %[[GX:.*]] = arith.maxsi %[[BLOCKS]], %{{.*}} : index
// CHECK-NEXT: "gpu.launch_func"(%[[GX]],
