// RUN: not autogpu-opt %s -p 'agpu-dense-indexing{threshold=0}' 2>&1 | filecheck %s --check-prefix=ZERO
// RUN: not autogpu-opt %s -p 'agpu-dense-indexing{threshold=-64}' 2>&1 | filecheck %s --check-prefix=NEG
// RUN: not autogpu-opt %s -p 'agpu-dense-indexing{mode=packed}' 2>&1 | filecheck %s --check-prefix=MODE
// RUN: not autogpu-opt %s -p 'agpu-dense-indexing{threshold=big}' 2>&1 | filecheck %s --check-prefix=TYPE
// RUN: not autogpu-opt %s -p 'agpu-dense-indexing{treshold=8}' 2>&1 | filecheck %s --check-prefix=NAME

// ZERO: error: agpu-dense-indexing: threshold must be at least 1, got 0
// ZERO-NOT: Traceback
// NEG: error: agpu-dense-indexing: threshold must be at least 1, got -64
// NEG-NOT: Traceback
// MODE: error: agpu-dense-indexing: mode must be one of auto, dense, sparse; got 'packed'
// MODE-NOT: Traceback
// TYPE: error: {{.*}}big
// TYPE-NOT: Traceback
// NAME: error: {{.*}}"treshold"
// NAME-NOT: Traceback

func.func @f() {
  func.return
}
