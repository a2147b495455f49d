// RUN: autogpu-opt %examples/matmul.c -p 'agpu-unroll-parallel{x=2 y=8},convert-agpu-to-gpu' | filecheck %s

// On examples/matmul.c (i on x, j on y): each thread computes 2 x 8 elements, so the grid is
// ceil(m / 512) x ceil(n / 8) blocks of 256 threads.

// CHECK: scf.if %full_tile {
// CHECK-LABEL: func.func @matmul(
// CHECK: %[[X:.*]] = arith.constant 512 : index
// CHECK-NEXT: arith.ceildivsi %{{.*}}, %[[X]] : index
// CHECK: %[[Y:.*]] = arith.constant 8 : index
// CHECK-NEXT: arith.ceildivsi %{{.*}}, %[[Y]] : index
