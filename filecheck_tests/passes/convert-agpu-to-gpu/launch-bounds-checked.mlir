// RUN: autogpu-opt %s -p 'convert-agpu-to-gpu{block_size=128}' | filecheck %s
// RUN: autogpu-opt %s -p 'convert-agpu-to-gpu{block_size=128}' -t cuda | filecheck %s --check-prefix=DESC

// num_teams(e) and thread_limit(e) of run-time value: the launch carries the expressions
// (agpu.launch_bounds, the launch description's "launch_bounds") so that the executors refuse
// e <= 0, or a compiled block of more than thread_limit(e) threads, at launch.

func.func @scale(%A: memref<?xf32>, %n: i32, %m: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
    %ii = arith.index_cast %i : i32 to index
    %v = memref.load %A[%ii] : memref<?xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %A[%ii] : memref<?xf32>
  } {agpu.num_teams = "((m + 1) / 2)", agpu.thread_limit = "(m * 4)"}
  func.return
}

// CHECK-LABEL: func.func @scale(
// CHECK-SAME: %[[A:.*]]: memref<?xf32>, %[[N:.*]]: i32, %[[M:.*]]: i32)
// CHECK:      "gpu.launch_func"(%[[GRID:.*]], %{{.*}}, %[[A]], %[[N]], %[[M]])
// CHECK-SAME: {agpu.launch_bounds = {num_teams = ["((m + 1) / 2)"], thread_limit = ["(m * 4)"]}}

// DESC: "launches": [{"kernel": "scale_kernel"
// DESC-SAME: "launch_bounds": {"num_teams": ["((m + 1) / 2)"], "thread_limit": ["(m * 4)"]}
