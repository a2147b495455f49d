// RUN: autogpu-opt %s 2>/dev/null | filecheck %s
// RUN: autogpu-opt %s 2>/dev/null | autogpu-opt | filecheck %s
// RUN: autogpu-opt %s 2>&1 >/dev/null | filecheck %s --check-prefix=WARN --allow-empty

// Data-sharing clauses (autogpu/frontend/data_sharing.py): each private, firstprivate and
// lastprivate variable is a fresh variable at the top of the parallel loop's body.

void private_copy(int n, int m, const double *a, double *b) {
  double t = 5.0;
  int j;
#pragma omp parallel for private(t, j) shared(a, b) default(none) shared(n, m)
  for (int i = 0; i < n; i++) {
    t = 0;
    for (j = 0; j < m; j++) t += a[i * m + j];
    b[i] = t;
  }
  b[0] += t;
}
// CHECK-LABEL: func.func @private_copy(
// CHECK: %[[OUTER:t]] = arith.constant 5.000000e+00
// CHECK: agpu.parallel_for %i = %{{.*}} to %n step %{{.*}} : i32 {
// CHECK: %[[T:.*]] = memref.alloca() : memref<f64>
// CHECK-NEXT: %[[J:.*]] = memref.alloca() : memref<i32>
// CHECK: memref.store %{{.*}}, %[[T]][] : memref<f64>
// CHECK: memref.store %{{.*}}, %[[J]][] : memref<i32>
// CHECK: }
// CHECK: arith.addf %{{.*}}, %[[OUTER]] : f64

void first_private(int n, const double *a, double *b) {
  double s = 2.0;
  b[0] = 1;
#pragma omp parallel for firstprivate(s) schedule(static, 16) num_threads(4) proc_bind(spread)
  for (int i = 1; i < n; i++) {
    s = s * a[i];
    b[i] = s;
  }
}
// CHECK-LABEL: func.func @first_private(
// CHECK: %[[S0:s]] = arith.constant 2.000000e+00
// CHECK: agpu.parallel_for %i = %{{.*}} to %n step %{{.*}} : i32 {
// CHECK: %[[S:.*]] = memref.alloca() : memref<f64>
// CHECK-NEXT: memref.store %[[S0]], %[[S]][] : memref<f64>

// lastprivate: `if (n - i <= step) original = copy`, the store marked agpu.last_iteration; the
// parallel loop's own variable (declared outside) keeps the exit value C gives it.
void last_private(int n, const float *a, float *out) {
  float last = -1;
  int i;
#pragma omp parallel for lastprivate(last, i)
  for (i = 0; i < n; i += 3)
    last = a[i];
  out[0] = last + i;
}
// CHECK-LABEL: func.func @last_private(
// CHECK: %[[STEP:.*]] = arith.constant 3 : i32
// CHECK: %[[LAST:last]] = memref.alloca() : memref<f32>
// CHECK: agpu.parallel_for %[[I:i.*]] = %{{.*}} to %n step %[[STEP]] : i32 {
// CHECK: %[[COPY:.*]] = memref.alloca() : memref<f32>
// CHECK: memref.store %{{.*}}, %[[COPY]][] : memref<f32>
// CHECK: %[[LEFT:.*]] = arith.subi %n, %[[I]] : i32
// CHECK-NEXT: %[[IS_LAST:.*]] = arith.cmpi ule, %[[LEFT]], %{{.*}} : i32
// CHECK-NEXT: scf.if %[[IS_LAST]] {
// CHECK-NEXT: %[[V:.*]] = memref.load %[[COPY]][] : memref<f32>
// CHECK-NEXT: memref.store %[[V]], %[[LAST]][] {agpu.last_iteration} : memref<f32>
// CHECK: memref.store %{{.*}}, %i{{.*}}[] : memref<i32>

// With collapse: the last iteration of the collapsed space, every level at its last value.
void last_collapsed(int n, int m, const int *a, int *out) {
  int v = 0;
#pragma omp parallel for collapse(2) firstprivate(v) lastprivate(v)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      v += a[i * m + j];
  out[0] = v;
}
// CHECK-LABEL: func.func @last_collapsed(
// CHECK: %[[V:v]] = memref.alloca() : memref<i32>
// CHECK: %[[V0:.*]] = memref.load %[[V]][] : memref<i32>
// CHECK: agpu.parallel_for %i = %{{.*}} to %n step %{{.*}} : i32 {
// CHECK: agpu.parallel_for %j = %{{.*}} to %m step %{{.*}} : i32 {
// CHECK: %[[COPY:.*]] = memref.alloca() : memref<i32>
// CHECK-NEXT: memref.store %[[V0]], %[[COPY]][] : memref<i32>
// CHECK: %[[LI:.*]] = arith.cmpi ule, %{{.*}}, %{{.*}} : i32
// CHECK: %[[LJ:.*]] = arith.cmpi ule, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: %[[BOTH:.*]] = arith.andi %[[LI]], %[[LJ]] : i1
// CHECK-NEXT: scf.if %[[BOTH]] {
// CHECK: memref.store %{{.*}}, %[[V]][] {agpu.last_iteration} : memref<i32>

// if(0): the loop runs serially (in one thread); `simd` and `nowait` change nothing.
void if_false(int n, float *a) {
#pragma omp parallel for if(0) private(n)
  for (int i = 0; i < 8; i++) a[i] = 1;
#pragma omp parallel for simd if(n > 100) nowait
  for (int i = 0; i < n; i++) a[i] = 2;
}
// CHECK-LABEL: func.func @if_false(
// CHECK: scf.for %i = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK: agpu.parallel_for %i{{.*}} = %{{.*}} to %n step %{{.*}} : i32 {

// WARN-NOT: warning
