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

// Function-like macros: arguments expanded, substituted and rescanned (nested uses, commas
// inside parentheses, bodies continued with '\', a name defined as another macro's name).
#define IDX(i, j) ((i) * n + (j))
#define AT(A, i, j) A[IDX(i, j)]
#define SQ(x) ((x) * (x))
#define MAX3(a, b, c) \
  max(max(a, b), \
      c)
#define THREE() 3
#define SQUARE SQ
void function_like(int n, const float *a, float *b) {
  for (int i = 0; i < n; i++)
    AT(b, i, 1) = SQ(a[IDX(i, 0)]) + MAX3(a[i], (float)SQ(i), 2.0f) + THREE() + SQUARE(n);
}
// CHECK-LABEL: func.func @function_like(
// SQ(a[IDX(i, 0)]) reads its argument twice, as C's expansion does.
// CHECK: %[[ROW:.*]] = arith.muli %i, %n overflow<nsw> : i32
// CHECK-NEXT: %[[A0:.*]] = arith.addi %[[ROW]], %c0{{.*}} overflow<nsw> : i32
// CHECK-NEXT: %[[IA:.*]] = arith.index_cast %[[A0]] : i32 to index
// CHECK-NEXT: %[[X:.*]] = memref.load %a[%[[IA]]] : memref<?xf32>
// CHECK: %[[Y:.*]] = memref.load %a[%{{.*}}] : memref<?xf32>
// CHECK-NEXT: arith.mulf %[[X]], %[[Y]] : f32
// CHECK: arith.muli %i, %i overflow<nsw> : i32
// CHECK: arith.maxnumf
// CHECK: arith.maxnumf
// CHECK: arith.muli %n, %n overflow<nsw> : i32
// CHECK: memref.store %{{.*}}, %b[%{{.*}}] : memref<?xf32>
