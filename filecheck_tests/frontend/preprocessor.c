// RUN: autogpu-opt %s | filecheck %s
// RUN: autogpu-opt %s | autogpu-opt | filecheck %s

// #include is ignored (the frontend knows the math functions and size_t); object-like
// #define is substituted, recursively, with line and column positions kept for diagnostics.
#include <math.h>
#include "kernel.h"
#define N 64
#define SCALE (2.5f)
#define N2 (N * N)
#define BODY a[i] = a[i] * SCALE
#define LONG_MACRO 1 + \
                   2
#ifndef TILE
#define TILE 8
#endif
#ifdef TILE
#define HAS_TILE 1
#else
#define HAS_TILE 0
#endif

void defines(float *a, int *out) {
  for (int i = 0; i < N; i++)
    BODY;
  out[0] = N2;
  out[1] = LONG_MACRO;
  out[2] = TILE + HAS_TILE;
}
// CHECK-LABEL: func.func @defines(
// CHECK: %[[N:.*]] = arith.constant 64 : i32
// CHECK: arith.constant 4096 : i32
// CHECK: arith.constant 3 : i32
// CHECK: arith.constant 9 : i32
// CHECK: scf.for %i = %{{.*}} to %[[N]]
// CHECK: %[[SCALE:.*]] = arith.constant 2.500000e+00 : f32
// CHECK: arith.mulf %{{.*}}, %[[SCALE]] : f32

#undef N
#define N 7
void redefined(int *out) { out[0] = N; }
// CHECK-LABEL: func.func @redefined(
// CHECK: arith.constant 7 : i32
