// RUN: not autogpu-opt %s -p 'gpu-cache-shared{tile=-1}' 2>&1 | filecheck %s --check-prefix=TILE
// RUN: not autogpu-opt %s -p 'gpu-cache-shared{shared_budget=-4}' 2>&1 | filecheck %s --check-prefix=BUDGET
// RUN: not autogpu-opt %s -p 'gpu-cache-shared{max_extent=-1}' 2>&1 | filecheck %s --check-prefix=MAX
// RUN: not autogpu-opt %s -p 'gpu-cache-shared{halo=3}' 2>&1 | filecheck %s --check-prefix=TYPE
// RUN: not autogpu-opt %s -p 'gpu-cache-shared{arrays=B}' 2>&1 | filecheck %s --check-prefix=ARRAY
// RUN: not autogpu-opt %s -p 'gpu-cache-shared{block=32}' 2>&1 | filecheck %s --check-prefix=NAME

// Invalid options are refused with a diagnostic, never a traceback.

// TILE: error: gpu-cache-shared: tile must be at least 1 (or 0), got -1
// TILE-NOT: Traceback
// BUDGET: error: gpu-cache-shared: shared_budget must be at least 0 bytes, got -4
// BUDGET-NOT: Traceback
// MAX: error: gpu-cache-shared: max_extent must be at least 0, got -1
// MAX-NOT: Traceback
// TYPE: error: {{.*}}expected <class 'bool'>
// TYPE-NOT: Traceback
// ARRAY: error: gpu-cache-shared: arrays=B: no kernel has a parameter 'B'
// ARRAY-NOT: Traceback
// NAME: error: {{.*}}"block"{{.*}}
// NAME-NOT: Traceback

func.func @f() {
  func.return
}
