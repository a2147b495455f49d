// RUN: autogpu-opt %examples/stencil2d.c -p 'autogpu-vanilla{block_size=32 block_y=4},gpu-cache-shared{assume_no_alias=true}' | filecheck %s
// RUN: autogpu-opt %examples/stencil2d.c -p 'autogpu-vanilla{block_size=32},gpu-cache-shared{assume_no_alias=true}' | filecheck %s --check-prefix=ROWS

// The 5-point Jacobi stencil with 2D blocks of 32 x 4 threads: the four taps
// in[(i -/+ 1) * m + j], in[i * m + j -/+ 1] of a block share a (32 + 2) x (4 + 2) tile (the
// corners, which no tap reads, are not loaded). The grid-stride loop over i, whose trip count
// differs between the rows of threads, becomes a loop all threads run (over the block's first
// row) with a guard for each thread's row, so the barriers inside are reached by all.

// CHECK-LABEL: "gpu.func"
// CHECK:         %[[SH:.*]] = memref.alloca() : memref<204xf64, 3 : i32>
// CHECK-DAG:     %[[TX:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}>
// CHECK-DAG:     %[[TY:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim y>}>
// CHECK:         scf.for %[[BASE:.*]] = %{{.*}} to %[[UB:.*]] step %{{.*}} {
// CHECK-NEXT:      %[[I:.*]] = arith.addi %[[BASE]], %[[TY]] : index
// CHECK-NEXT:      %[[ROW:.*]] = arith.cmpi slt, %[[I]], %[[UB]] : index
// 204 elements loaded by 128 threads: ty * 32 + tx, then + 128.
// CHECK:           %[[T:.*]] = arith.addi %{{.*}}, %[[TX]] : index
// CHECK:           scf.for %[[E:.*]] = %[[T]] to %{{.*}} step %{{.*}} {
// CHECK:               %[[V:.*]] = memref.load %in[%{{.*}}] : memref<?xf64>
// CHECK-NEXT:          memref.store %[[V]], %[[SH]][%[[E]]] : memref<204xf64, 3 : i32>
// CHECK:           "gpu.barrier"() : () -> ()
// CHECK-NEXT:      scf.if %[[ROW]] {
// CHECK-COUNT-4:     memref.load %[[SH]]
// CHECK:           "gpu.barrier"() : () -> ()
// CHECK-NEXT:    }
// CHECK-NOT:     memref.load %in

// Blocks of one row: each iteration of the grid-stride loop (one i per block) loads the three
// rows i - 1, i, i + 1 of 32 + 2 elements.
// ROWS:          memref.alloca() : memref<102xf64, 3 : i32>
// ROWS-NOT:      "gpu.thread_id"() <{dimension = #gpu<dim y>}>
// ROWS:          scf.for
// ROWS:            "gpu.barrier"
// ROWS-COUNT-4:    memref.load %{{.*}} : memref<102xf64, 3 : i32>
// ROWS:            "gpu.barrier"
