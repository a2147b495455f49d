// RUN: not autogpu-opt %s -p 'agpu-unroll-parallel{x=0}' 2>&1 | filecheck %s --check-prefix=ZERO
// RUN: not autogpu-opt %s -p 'agpu-unroll-parallel{y=-2}' 2>&1 | filecheck %s --check-prefix=NEG
// RUN: not autogpu-opt %s -p 'agpu-unroll-parallel{x=two}' 2>&1 | filecheck %s --check-prefix=TYPE
// RUN: not autogpu-opt %s -p 'agpu-unroll-parallel{w=2}' 2>&1 | filecheck %s --check-prefix=NAME
// RUN: not autogpu-opt %s -p 'agpu-unroll-parallel{x=true}' 2>&1 | filecheck %s --check-prefix=BOOL
// RUN: not autogpu-opt %s -p 'agpu-unroll-parallel{distribution=diagonal}' 2>&1 | filecheck %s --check-prefix=DIST
// RUN: not autogpu-opt %s -p 'gpu-vectorize{width=3}' 2>&1 | filecheck %s --check-prefix=WIDTH
// RUN: not autogpu-opt %s -p 'gpu-cache-shared{copy_width=8}' 2>&1 | filecheck %s --check-prefix=COPY

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
// DIST: error: agpu-unroll-parallel: distribution must be one of cyclic, blocked; got 'diagonal'
// DIST-NOT: Traceback
// WIDTH: error: gpu-vectorize: width must be one of 0, 2, 4; got 3
// WIDTH-NOT: Traceback
// COPY: error: gpu-cache-shared: copy_width must be one of 1, 2, 4; got 8
// COPY-NOT: Traceback
