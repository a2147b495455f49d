// RUN: not autogpu-opt %s -p 'agpu-unroll-parallel{x=0}' 2>&1 | filecheck %s --check-prefix=ZERO
// RUN: not autogpu-opt %s -p 'agpu-unroll-parallel{y=-2}' 2>&1 | filecheck %s --check-prefix=NEG
// RUN: not autogpu-opt %s -p 'agpu-unroll-parallel{x=two}' 2>&1 | filecheck %s --check-prefix=TYPE
// RUN: not autogpu-opt %s -p 'agpu-unroll-parallel{w=2}' 2>&1 | filecheck %s --check-prefix=NAME
// RUN: not autogpu-opt %s -p 'agpu-unroll-parallel{x=true}' 2>&1 | filecheck %s --check-prefix=BOOL

// ZERO: error: agpu-unroll-parallel: invalid factor x=0: each thread runs at least one iteration (factors must be at least 1)
// ZERO-NOT: Traceback
// NEG: error: agpu-unroll-parallel: invalid factor y=-2
// NEG-NOT: Traceback
// TYPE: error: {{.*}}two
// TYPE-NOT: Traceback
// NAME: error: {{.*}}"w"
// NAME-NOT: Traceback

func.func @f() {
  func.return
}
// BOOL: error: agpu-unroll-parallel: invalid factor x=True: expected an integer
// BOOL-NOT: Traceback
