// RUN: autogpu-opt %s | filecheck %s
// RUN: autogpu-opt %s | autogpu-opt | filecheck %s

// Arrays are flat memref<?xT>: the C index expression is computed in its C type and
// index_cast right before the load/store; A[i][j] on float A[m][n] is A[i * n + j], computed
// in i64 (C scales each subscript as pointer arithmetic, in ptrdiff_t).
// A 32-bit unsigned index is zero-extended first (extui to i64), as C's a[u] reads
// element (size_t)u: index_cast alone would sign-extend u >= 2^31 to a negative index.

void flat(int n, long l, unsigned u, float *a, float *out) {
  out[0] = a[2 * n + 1];
  out[1] = a[l];
  out[2] = a[u];
  out[3] = a[n > 0];
  out[4] = a[(long)n * n];
}
// CHECK-LABEL: func.func @flat(
// CHECK: %[[T:.*]] = arith.muli %{{.*}}, %n overflow<nsw> : i32
// CHECK-NEXT: %[[I:.*]] = arith.addi %[[T]], %{{.*}} overflow<nsw> : i32
// CHECK-NEXT: %[[X:.*]] = arith.index_cast %[[I]] : i32 to index
// CHECK-NEXT: memref.load %a[%[[X]]] : memref<?xf32>
// CHECK: %[[L:.*]] = arith.index_cast %l : i64 to index
// CHECK-NEXT: memref.load %a[%[[L]]]
// CHECK: %[[UW:.*]] = arith.extui %u : i32 to i64
// CHECK-NEXT: %[[U:.*]] = arith.index_cast %[[UW]] : i64 to index
// CHECK-NEXT: memref.load %a[%[[U]]]
// CHECK: %[[B:.*]] = arith.extui %{{.*}} : i1 to i32
// CHECK-NEXT: arith.index_cast %[[B]] : i32 to index
// CHECK: %[[W:.*]] = arith.extsi %n : i32 to i64
// CHECK: arith.muli %[[W]], %{{.*}} overflow<nsw> : i64

// One value indexed as unsigned and as int: two different elements, two different casts.
void signedness(unsigned u, float *a, float *out) {
  unsigned v = u - 1u;
  out[0] = a[v];
  out[1] = a[(int)v];
  out[2] = a[v];
}
// CHECK-LABEL: func.func @signedness(
// CHECK: %[[V:.*]] = arith.subi %u, %{{.*}} : i32
// CHECK-NEXT: %[[VW:.*]] = arith.extui %[[V]] : i32 to i64
// CHECK-NEXT: %[[UX:.*]] = arith.index_cast %[[VW]] : i64 to index
// CHECK-NEXT: memref.load %a[%[[UX]]]
// CHECK: %[[SX:.*]] = arith.index_cast %[[V]] : i32 to index
// CHECK-NEXT: memref.load %a[%[[SX]]]
// CHECK: memref.load %a[%[[UX]]]

// A[i][j] with int subscripts: each subscript and the extent are extended to i64 as C converts
// them (extsi for int, extui for unsigned) and the row-major offset is computed there, so an
// array of 2^31 or more elements is addressed as gcc addresses it.
void rows(int m, int n, unsigned u, const float A[m][n], float *out) {
  out[0] = A[m - 1][n - 1];
  out[1] = A[u][2];
}
// CHECK-LABEL: func.func @rows(
// CHECK: %[[R:.*]] = arith.subi %m, %{{.*}} overflow<nsw> : i32
// CHECK-NEXT: %[[RW:.*]] = arith.extsi %[[R]] : i32 to i64
// CHECK-NEXT: %[[NW:.*]] = arith.extsi %n : i32 to i64
// CHECK-NEXT: %[[RN:.*]] = arith.muli %[[RW]], %[[NW]] overflow<nsw> : i64
// CHECK-NEXT: %[[C:.*]] = arith.subi %n, %{{.*}} overflow<nsw> : i32
// CHECK-NEXT: %[[CW:.*]] = arith.extsi %[[C]] : i32 to i64
// CHECK-NEXT: %[[F:.*]] = arith.addi %[[RN]], %[[CW]] overflow<nsw> : i64
// CHECK-NEXT: %[[X:.*]] = arith.index_cast %[[F]] : i64 to index
// CHECK-NEXT: memref.load %A[%[[X]]] : memref<?xf32>
// CHECK: %[[UW:.*]] = arith.extui %u : i32 to i64
// CHECK: arith.muli %[[UW]], %{{.*}} overflow<nsw> : i64
