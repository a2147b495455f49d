// RUN: not autogpu-opt %s -p 'agpu-unroll-serial{factor=0}' 2>&1 | filecheck %s --check-prefix=ZERO
// RUN: not autogpu-opt %s -p 'agpu-unroll-serial{factor=-2}' 2>&1 | filecheck %s --check-prefix=NEG
// RUN: not autogpu-opt %s -p 'agpu-unroll-serial{full_unroll_limit=-1}' 2>&1 | filecheck %s --check-prefix=LIMIT
// RUN: not autogpu-opt %s -p 'agpu-unroll-serial{factor=four}' 2>&1 | filecheck %s --check-prefix=TYPE
// RUN: not autogpu-opt %s -p 'agpu-unroll-serial{depth=2}' 2>&1 | filecheck %s --check-prefix=NAME

// ZERO: error: agpu-unroll-serial: factor must be at least 1, got 0
// ZERO-NOT: Traceback
// NEG: error: agpu-unroll-serial: factor must be at least 1, got -2
// NEG-NOT: Traceback
// LIMIT: error: agpu-unroll-serial: full_unroll_limit must be at least 0, got -1
// LIMIT-NOT: Traceback
// TYPE: error: {{.*}}four
// TYPE-NOT: Traceback
// NAME: error: {{.*}}"depth"
// NAME-NOT: Traceback

func.func @f() {
  func.return
}
