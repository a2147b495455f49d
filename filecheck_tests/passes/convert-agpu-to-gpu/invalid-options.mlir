// RUN: not autogpu-opt %s -p 'convert-agpu-to-gpu{block_size=0}' 2>&1 | filecheck %s --check-prefix=ZERO
// RUN: not autogpu-opt %s -p 'convert-agpu-to-gpu{block_size=2048}' 2>&1 | filecheck %s --check-prefix=LARGE
// RUN: not autogpu-opt %s -p 'convert-agpu-to-gpu{block_size=256 block_y=8}' 2>&1 | filecheck %s --check-prefix=LARGE2D
// RUN: not autogpu-opt %s -p 'convert-agpu-to-gpu{block_z=128}' 2>&1 | filecheck %s --check-prefix=DEEP

// Blocks CUDA cannot launch are refused when the pipeline is built, with a diagnostic and no
// traceback.

func.func @f() {
  func.return
}

// ZERO: error: invalid option block_size=0: threads per block must be >= 1
// ZERO-NOT: Traceback
// LARGE: error: invalid block of 2048x1x1 = 2048 threads: CUDA allows at most 1024 threads per block
// LARGE-NOT: Traceback
// LARGE2D: error: invalid block of 256x8x1 = 2048 threads
// DEEP: error: invalid option block_z=128: CUDA allows at most 64
