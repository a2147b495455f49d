// RUN: autogpu-opt %s | filecheck %s
// RUN: autogpu-opt %s | autogpu-opt | filecheck %s

// reduction(op: h[lo:len]) and whole arrays: the loop lists the array with its section as flat
// index values [lo : len], and every update of an element is one atomic update of it.

// CHECK-LABEL: func.func @histogram
// CHECK-SAME: %[[H:[A-Za-z0-9_]+]]: memref<?xi32> {agpu.name = "h", agpu.ctype = "int", agpu.extents = ["256"]}
// CHECK: %[[LO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[LEN:.*]] = arith.constant 256 : index
// CHECK-NEXT: agpu.parallel_for %{{.*}} reduction(add %[[H]][%[[LO]] : %[[LEN]]] : memref<?xi32>) {
// CHECK: %[[AND:.*]] = arith.andi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: %[[BIN:.*]] = arith.index_cast %[[AND]] : i32 to index
// CHECK-NEXT: %{{.*}} = "memref.atomic_rmw"(%{{.*}}, %[[H]], %[[BIN]]) <{kind = 1 : i64}>
void histogram(int n, const int *x, int h[256]) {
#pragma omp parallel for reduction(+: h)
  for (int i = 0; i < n; i++)
    h[x[i] & 255]++;
}

// A section with a parameter length, rows of a 2D array (lo and len count whole rows), and an
// unsigned max (`if` form): its kind is umax, its atomic maxu (7).
// CHECK-LABEL: func.func @column_sums
// CHECK-SAME: %[[N:[A-Za-z0-9_]+]]: i32 {agpu.name = "n"
// CHECK-SAME: %[[CS:[A-Za-z0-9_]+]]: memref<?xf64> {agpu.name = "cs"
// CHECK: %[[LO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[LEN:.*]] = arith.index_cast %[[N]] : i32 to index
// CHECK-NEXT: agpu.parallel_for %{{.*}} reduction(add %[[CS]][%[[LO]] : %[[LEN]]] : memref<?xf64>)
// CHECK: "memref.atomic_rmw"(%{{.*}}, %[[CS]], %{{.*}}) <{kind = 0 : i64}>
void column_sums(int m, int n, const double A[m][n], double *cs) {
#pragma omp parallel for reduction(+: cs[0:n])
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      cs[j] += A[i][j];
}

// CHECK-LABEL: func.func @rows
// CHECK-SAME: %[[A:[A-Za-z0-9_]+]]: memref<?xi32> {agpu.name = "A", agpu.ctype = "unsigned", agpu.extents = ["4", "8"]}
// CHECK: %[[LO:.*]] = arith.constant 8 : index
// CHECK-NEXT: %[[LEN:.*]] = arith.constant 16 : index
// CHECK-NEXT: agpu.parallel_for %{{.*}} reduction(umax %[[A]][%[[LO]] : %[[LEN]]] : memref<?xi32>)
// CHECK: "memref.atomic_rmw"(%{{.*}}, %[[A]], %{{.*}}) <{kind = 7 : i64}>
void rows(int n, const unsigned *x, unsigned A[4][8]) {
#pragma omp parallel for reduction(max: A[1:2][:])
  for (int i = 0; i < n; i++)
    if (x[i] > A[1 + (i & 1)][i & 7]) A[1 + (i & 1)][i & 7] = x[i];
}

// `&&` has no atomic kind: an agpu.atomic_update computing C's `h[k] && e` as 0 or 1.
// CHECK-LABEL: func.func @all
// CHECK: agpu.parallel_for %{{.*}} reduction(land %{{.*}}[%{{.*}} : %{{.*}}] : memref<?xf32>)
// CHECK: "agpu.atomic_update"(%{{.*}}, %{{.*}}) ({
// CHECK-NEXT: ^{{.*}}(%[[CUR:.*]]: f32):
// CHECK: %[[OLD:.*]] = arith.cmpf une, %[[CUR]], %{{.*}} : f32
// CHECK-NEXT: %[[NEW:.*]] = arith.cmpf une, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[BOTH:.*]] = arith.andi %[[OLD]], %[[NEW]] : i1
// CHECK-NEXT: %[[V:.*]] = arith.select %[[BOTH]], %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: "agpu.atomic_yield"(%[[V]]) : (f32) -> ()
void all(int n, const float *x, float h[4]) {
#pragma omp parallel for reduction(&&: h)
  for (int i = 0; i < n; i++)
    h[i % 4] = h[i % 4] && x[i];
}
