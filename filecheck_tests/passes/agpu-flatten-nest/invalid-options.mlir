// RUN: not autogpu-opt %s -p 'agpu-flatten-nest{min_depth=1}' 2>&1 | filecheck %s --check-prefix=DEPTH
// RUN: not autogpu-opt %s -p 'agpu-flatten-nest{mode=inner}' 2>&1 | filecheck %s --check-prefix=MODE

// DEPTH: error: agpu-flatten-nest: min_depth must be at least 2, got 1
// DEPTH-NOT: Traceback
// MODE: error: agpu-flatten-nest: mode must be one of all, outer; got 'inner'
// MODE-NOT: Traceback

func.func @f() {
  func.return
}
