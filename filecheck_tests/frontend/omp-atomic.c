// RUN: autogpu-opt %s 2>&1 | filecheck %s
// RUN: autogpu-opt %s 2>/dev/null | autogpu-opt | filecheck %s

// `#pragma omp atomic` in a parallel loop: memref.atomic_rmw where MLIR has the operator for
// the location's own type, else agpu.atomic_update computing C's update in its region.

void forms(int n, int k, const unsigned *x, int *h, unsigned *u, float *f, double *d, long *l) {
  float s = 0;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp atomic
    h[x[i] % k] += 1;
#pragma omp atomic update
    u[i]--;
#pragma omp atomic
    f[i] = f[i] - 2.0f;
#pragma omp atomic
    d[i] *= 3.0;
#pragma omp atomic
    l[i] = l[i] ^ x[i];
#pragma omp atomic
    s += f[i];
#pragma omp atomic
    h[i] /= 3;
#pragma omp atomic
    f[i] = 1.0f - f[i];
#pragma omp atomic
    f[i] += 0.1;
  }
}
// CHECK-NOT: warning
// CHECK-LABEL: func.func @forms(
// CHECK: %[[S:.*]] = memref.alloca() : memref<f32>
// CHECK: agpu.parallel_for
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: %[[H:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK-NEXT: %{{.*}} = "memref.atomic_rmw"(%[[ONE]], %h, %[[H]]) <{kind = 1 : i64}> : (i32, memref<?xi32>, index) -> i32
// u[i]-- adds -1 (modulo 2^32)
// CHECK: "memref.atomic_rmw"(%c4294967295, %u, %{{.*}}) <{kind = 1 : i64}>
// f[i] = f[i] - 2.0f adds -2.0f
// CHECK: %[[NEG:.*]] = arith.negf %{{.*}} : f32
// CHECK: "memref.atomic_rmw"(%[[NEG]], %f, %{{.*}}) <{kind = 0 : i64}>
// CHECK: "memref.atomic_rmw"(%{{.*}}, %d, %{{.*}}) <{kind = 12 : i64}> : (f64, memref<?xf64>, index) -> f64
// CHECK: "memref.atomic_rmw"(%{{.*}}, %l, %{{.*}}) <{kind = 15 : i64}> : (i64, memref<?xi64>, index) -> i64
// CHECK: "memref.atomic_rmw"(%{{.*}}, %[[S]]) <{kind = 0 : i64}> : (f32, memref<f32>) -> f32
// Division has no kind: a region computes it.
// CHECK: "agpu.atomic_update"(%h, %{{.*}}) ({
// CHECK-NEXT: ^{{.*}}(%[[CUR:.*]]: i32):
// CHECK-NEXT: %[[Q:.*]] = arith.divsi %[[CUR]], %{{.*}} : i32
// CHECK-NEXT: "agpu.atomic_yield"(%[[Q]]) : (i32) -> ()
// CHECK-NEXT: }) : (memref<?xi32>, index) -> i32
// x = e - x is not x op= e.
// CHECK: "agpu.atomic_update"(%f, %{{.*}}) ({
// CHECK-NEXT: ^{{.*}}(%[[CUR2:.*]]: f32):
// CHECK-NEXT: %[[D:.*]] = arith.subf %{{.*}}, %[[CUR2]] : f32
// CHECK-NEXT: "agpu.atomic_yield"(%[[D]]) : (f32) -> ()
// f[i] += 0.1 computes in double.
// CHECK: "agpu.atomic_update"(%f, %{{.*}}) ({
// CHECK-NEXT: ^{{.*}}(%[[CUR3:.*]]: f32):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[CUR3]] : f32 to f64
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[W]], %{{.*}} : f64
// CHECK-NEXT: %[[N:.*]] = arith.truncf %[[SUM]] : f64 to f32
// CHECK-NEXT: "agpu.atomic_yield"(%[[N]]) : (f32) -> ()

void capture(int n, int *next, int *seen, int *out) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    int mine, after, v;
#pragma omp atomic capture
    mine = next[0]++;
#pragma omp atomic capture seq_cst
    after = next[1] += 2;
#pragma omp atomic write
    seen[i] = mine + after;
#pragma omp atomic read relaxed
    v = seen[n - 1 - i];
    out[i] = v;
#pragma omp atomic capture
    { out[n + i] = next[2]; next[2] = i; }
#pragma omp atomic capture
    { next[3] /= 2; out[2 * n + i] = next[3]; }
  }
}
// CHECK-LABEL: func.func @capture(
// CHECK: %[[OLD:.*]] = "memref.atomic_rmw"(%{{.*}}, %next, %{{.*}}) <{kind = 1 : i64}>
// CHECK: memref.store %[[OLD]], %mine[]
// CHECK: %[[OLD1:.*]] = "memref.atomic_rmw"(%[[TWO:.*]], %next, %{{.*}}) <{kind = 1 : i64}>
// CHECK-NEXT: %[[NEW1:.*]] = arith.addi %[[OLD1]], %[[TWO]] overflow<nsw> : i32
// CHECK-NEXT: memref.store %[[NEW1]], %after[]
// CHECK: "memref.atomic_rmw"(%{{.*}}, %seen, %{{.*}}) <{kind = 3 : i64}>
// CHECK: %[[READ:.*]] = "agpu.atomic_update"(%seen, %{{.*}}) ({
// CHECK-NEXT: ^{{.*}}(%[[C:.*]]: i32):
// CHECK-NEXT: "agpu.atomic_yield"(%[[C]]) : (i32) -> ()
// CHECK: memref.store %[[READ]], %v[]
// {v = x; x = e;} exchanges.
// CHECK: %[[SWAPPED:.*]] = "memref.atomic_rmw"(%i, %next, %{{.*}}) <{kind = 3 : i64}>
// CHECK: memref.store %[[SWAPPED]], %out[
// {x /= 2; v = x;} captures the new value, computed again from the old one.
// CHECK: %[[HALVED:.*]] = "agpu.atomic_update"(%next, %{{.*}}) ({
// CHECK: %[[AGAIN:.*]] = arith.divsi %[[HALVED]], %c2 : i32
// CHECK-NEXT: %{{.*}} = arith.muli
// CHECK: memref.store %[[AGAIN]], %out[

// In serial code, and on a variable private to an iteration, the statement is plain.
void plain(int n, float *a) {
#pragma omp atomic
  a[0] += 1.0f;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    float t = a[i];
#pragma omp atomic
    t *= 2.0f;
    a[i] = t;
  }
}
// CHECK-LABEL: func.func @plain(
// CHECK-NOT: atomic
// CHECK: func.return

// Nor on a reduction variable: each thread updates its private copy.
void reduced(int n, const float *x, float *out) {
  float s = 0;
#pragma omp parallel for reduction(+: s)
  for (int i = 0; i < n; i++) {
#pragma omp atomic
    s += x[i];
  }
  out[0] = s;
}
// CHECK-LABEL: func.func @reduced(
// CHECK-NOT: atomic
// CHECK: func.return

// A critical section: its ops inside agpu.critical, the lock's name a property.
void critical(int n, const float *x, float *sum) {
  float s = 0;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp critical (acc)
    s += x[i];
#pragma omp critical
    {
      sum[1] = sum[1] + 1;
    }
  }
  sum[0] = s;
}
// CHECK-LABEL: func.func @critical(
// CHECK: agpu.parallel_for
// CHECK-NEXT: "agpu.critical"() <{lock = "acc"}> ({
// CHECK: memref.load %s[]
// CHECK: memref.store %{{.*}}, %s[]
// CHECK-NEXT: "agpu.critical_end"() : () -> ()
// CHECK: "agpu.critical"() <{lock = ""}> ({

// An 8-bit element: C computes `h[k] + 3` in int and converts back, so the update is an
// agpu.atomic_update whose region promotes, adds and truncates (the cuda target swaps the
// 32-bit word that holds the byte).
void small_update(int n, const int *x, unsigned char *h) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp atomic
    h[x[i]] += 3;
  }
}
// CHECK-LABEL: func.func @small_update(
// CHECK: %[[XI:.*]] = memref.load %x[%{{.*}}] : memref<?xi32>
// CHECK-NEXT: %[[K:.*]] = arith.index_cast %[[XI]] : i32 to index
// CHECK-NEXT: %{{.*}} = "agpu.atomic_update"(%h, %[[K]]) ({
// CHECK-NEXT: ^bb0(%[[CUR:.*]]: i8):
// CHECK-NEXT: %[[WIDE:.*]] = arith.extui %[[CUR]] : i8 to i32
// CHECK-NEXT: %[[SUM:.*]] = arith.addi %[[WIDE]], %{{.*}} overflow<nsw> : i32
// CHECK-NEXT: %[[NEW:.*]] = arith.trunci %[[SUM]] : i32 to i8
// CHECK-NEXT: "agpu.atomic_yield"(%[[NEW]]) : (i8) -> ()
// CHECK-NEXT: }) : (memref<?xi8>, index) -> i8
