// RUN: autogpu-opt %s | filecheck %s
// RUN: autogpu-opt %s | autogpu-opt | filecheck %s

// Arrays are flat memref<?xT>: the C index expression is computed in its C type and
// index_cast right before the load/store; A[i][j] on float A[m][n] is A[i * n + j].

void flat(int n, long l, unsigned u, float *a, float *out) {
  out[0] = a[2 * n + 1];
  out[1] = a[l];
  out[2] = a[u];
  out[3] = a[n > 0];
  out[4] = a[(long)n * n];
}
// CHECK-LABEL: func.func @flat(
// CHECK: %[[T:.*]] = arith.muli %{{.*}}, %n : i32
// CHECK-NEXT: %[[I:.*]] = arith.addi %[[T]], %{{.*}} : i32
// CHECK-NEXT: %[[X:.*]] = arith.index_cast %[[I]] : i32 to index
// CHECK-NEXT: memref.load %a[%[[X]]] : memref<?xf32>
// CHECK: %[[L:.*]] = arith.index_cast %l : i64 to index
// CHECK-NEXT: memref.load %a[%[[L]]]
// CHECK: %[[U:.*]] = arith.index_cast %u : i32 to index
// CHECK-NEXT: memref.load %a[%[[U]]]
// CHECK: %[[B:.*]] = arith.extui %{{.*}} : i1 to i32
// CHECK-NEXT: arith.index_cast %[[B]] : i32 to index
// CHECK: %[[W:.*]] = arith.extsi %n : i32 to i64
// CHECK: arith.muli %[[W]], %{{.*}} : i64

void two_d(int m, int n, const float A[m][n], float B[m][n]) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      B[i][j] = A[j][i];
}
// CHECK-LABEL: func.func @two_d(
// CHECK: %[[R:.*]] = arith.muli %j, %n : i32
// CHECK-NEXT: %[[F:.*]] = arith.addi %[[R]], %i : i32
// CHECK-NEXT: %[[X:.*]] = arith.index_cast %[[F]] : i32 to index
// CHECK-NEXT: memref.load %A[%[[X]]] : memref<?xf32>
// CHECK: %[[R2:.*]] = arith.muli %i, %n : i32
// CHECK-NEXT: %[[F2:.*]] = arith.addi %[[R2]], %j : i32
// CHECK-NEXT: %[[X2:.*]] = arith.index_cast %[[F2]] : i32 to index
// CHECK-NEXT: memref.store %{{.*}}, %B[%[[X2]]] : memref<?xf32>

// The extent is the parameter's value on entry, even if the parameter changes later (C99).
#define K 4
void three_d(int n, double T[][n][K], double *out) {
  n = 0;
  out[0] = T[1][2][3];
}
// CHECK-LABEL: func.func @three_d(%n: i32
// CHECK: memref.store %{{.*}}, %[[SLOT:.*]][] : memref<i32>
// CHECK: %[[A:.*]] = arith.muli %{{.*}}, %n : i32
// CHECK-NEXT: %[[B:.*]] = arith.addi %[[A]], %{{.*}} : i32
// CHECK-NEXT: %[[C:.*]] = arith.muli %[[B]], %c4 : i32
// CHECK-NEXT: %[[D:.*]] = arith.addi %[[C]], %c3 : i32
// CHECK-NEXT: arith.index_cast %[[D]] : i32 to index
