// RUN: autogpu-opt %s -p 'convert-agpu-to-gpu{block_size=128}' | filecheck %s

// num_teams(e) with e an expression of the parameters (recorded by the frontend as a string in
// the launch description's language): the host computes e from the parameters at launch and
// launches min(max(ceildiv(n, 128), 1), max(e, 1)) blocks on x; the kernel loops over the rest
// (grid-stride), whatever e turns out to be.

func.func @scale(%A: memref<?xf32>, %n: i32, %m: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
    %ii = arith.index_cast %i : i32 to index
    %v = memref.load %A[%ii] : memref<?xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %A[%ii] : memref<?xf32>
  } {agpu.num_teams = "((m + 1) / 2)"}
  func.return
}

// CHECK-LABEL: "gpu.func"
// CHECK:      %[[GID:gid_x.*]] = arith.addi %{{.*}}, %{{.*}} overflow<nsw> : index
// CHECK:      %[[GDX:.*]] = "gpu.grid_dim"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT: %[[STRIDE:.*]] = arith.muli %[[GDX]], %{{.*}} overflow<nsw> : index
// CHECK-NEXT: scf.for %{{.*}} = %[[GID]] to %{{.*}} step %[[STRIDE]] {
// CHECK-LABEL: func.func @scale(
// CHECK-SAME: %{{.*}}: memref<?xf32>, %{{.*}}: i32, %[[M:.*]]: i32)
// CHECK:      %[[BLOCKS:.*]] = arith.ceildivsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[ATLEAST:.*]] = arith.maxsi %[[BLOCKS]], %[[ONE:.*]] : index
// CHECK-NEXT: %[[MI:.*]] = arith.index_cast %[[M]] : i32 to index
// CHECK-NEXT: %[[SUM:.*]] = arith.addi %[[MI]], %[[ONE]] : index
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[TEAMS:.*]] = arith.divsi %[[SUM]], %[[TWO]] : index
// CHECK-NEXT: %[[POSITIVE:.*]] = arith.maxsi %[[TEAMS]], %[[ONE]] : index
// CHECK-NEXT: %[[GRID:.*]] = arith.minsi %[[ATLEAST]], %[[POSITIVE]] : index
// CHECK-NEXT: "gpu.launch_func"(%[[GRID]],
