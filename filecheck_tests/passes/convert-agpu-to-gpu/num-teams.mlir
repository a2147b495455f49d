// RUN: autogpu-opt %s -p 'convert-agpu-to-gpu{block_size=128}' | filecheck %s

// OpenMP's num_teams(N), recorded on the loop as agpu.num_teams, bounds its kernel's grid: x
// launches min(ceildiv(n, 128), 4) blocks and the threads loop over the rest (grid-stride),
// as y and z do past 65535.

func.func @scale(%A: memref<?xf32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
    %ii = arith.index_cast %i : i32 to index
    %v = memref.load %A[%ii] : memref<?xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %A[%ii] : memref<?xf32>
  } {agpu.num_teams = 4 : i64}
  func.return
}

// CHECK:      %[[BX:.*]] = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT: %[[BDX:.*]] = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT: %[[TX:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT: %[[FIRST:.*]] = arith.muli %[[BX]], %[[BDX]] overflow<nsw> : index
// CHECK-NEXT: %[[GID:.*]] = arith.addi %[[FIRST]], %[[TX]] overflow<nsw> : index
// CHECK:      %[[GDX:.*]] = "gpu.grid_dim"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT: %[[STRIDE:.*]] = arith.muli %[[GDX]], %[[BDX]] overflow<nsw> : index
// CHECK-NEXT: scf.for %{{.*}} = %[[GID]] to %{{.*}} step %[[STRIDE]] {
// CHECK-LABEL: func.func @scale(
// CHECK:      %[[BLOCKS:.*]] = arith.ceildivsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[ATLEAST:.*]] = arith.maxsi %[[BLOCKS]], %{{.*}} : index
// CHECK-NEXT: %[[TEAMS:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[GRID:.*]] = arith.minsi %[[ATLEAST]], %[[TEAMS]] : index
// CHECK-NEXT: "gpu.launch_func"(%[[GRID]],
