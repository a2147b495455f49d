// RUN: autogpu-opt %s 2>/dev/null | filecheck %s
// RUN: autogpu-opt %s 2>&1 >/dev/null | filecheck %s --check-prefix=WARN --allow-empty

// A `#pragma omp parallel` region becomes its statements in order: each `omp for` an
// agpu.parallel_for (with the region's reductions on the loops that update them), `single` and
// `master` bodies and the region's own declarations serial code, barriers and nowait nothing
// (kernels run in stream order, so every kernel boundary is a barrier).

void two_loops_and_single(int n, const float *x, float *y, float *z, float *out) {
  float s = 0;
#pragma omp parallel reduction(+: s)
  {
    float two = 2.0f;
#pragma omp for
    for (int i = 0; i < n; i++) y[i] = two * x[i];
#pragma omp single
    {
      z[0] = y[0] + 1;
    }
#pragma omp for nowait
    for (int i = 0; i < n; i++) s += y[i];
#pragma omp barrier
#pragma omp master
    z[1] = 3;
  }
  out[0] = s;
}
// CHECK-LABEL: func.func @two_loops_and_single(
// CHECK: %[[S:.*]] = memref.alloca() : memref<f32>
// CHECK: %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: agpu.parallel_for %i = %{{.*}} to %n step %{{.*}} : i32 {
// CHECK: arith.mulf %[[TWO]], %{{.*}} : f32
// CHECK: }
// The single: serial code between the two loops.
// CHECK: %[[Y0:.*]] = memref.load %y[%{{.*}}] : memref<?xf32>
// CHECK: %[[Z0:.*]] = arith.addf %[[Y0]], %{{.*}} : f32
// CHECK: memref.store %[[Z0]], %z[%{{.*}}] : memref<?xf32>
// The region's reduction goes to the loop that updates s, and only to it.
// CHECK: agpu.parallel_for %i_1 = %{{.*}} to %n step %{{.*}} : i32 reduction(add %[[S]] : memref<f32>) {
// CHECK: }
// CHECK: memref.store %{{.*}}, %z[%{{.*}}] : memref<?xf32>
// CHECK: memref.load %[[S]][] : memref<f32>
// CHECK: func.return

// `parallel` and `for` on consecutive lines are the combined construct.
void stacked(int n, float *a) {
#pragma omp parallel
#pragma omp for
  for (int i = 0; i < n; i++) a[i] = 0;
}
// CHECK-LABEL: func.func @stacked(
// CHECK: agpu.parallel_for %i = %{{.*}} to %n step %{{.*}} : i32 {

// A loop declared before the region, its variable private to the `omp for` (OpenMP's
// predetermined rule), and a private scalar of the region assigned in it.
void outer_index(int n, float c, float *a) {
  int i;
#pragma omp parallel
  {
    float t;
    t = c * 2.0f;
#pragma omp for
    for (i = 0; i < n; i++) a[i] = t;
  }
}
// CHECK-LABEL: func.func @outer_index(
// CHECK: %[[T:.*]] = arith.mulf %c, %{{.*}} : f32
// CHECK: memref.store %[[T]], %t[] : memref<f32>
// CHECK: agpu.parallel_for %[[I:.*]] = %{{.*}} to %n step %{{.*}} : i32 {
// CHECK: %[[INDEX:.*]] = arith.index_cast %[[I]] : i32 to index
// CHECK: memref.store %{{.*}}, %a[%[[INDEX]]] : memref<?xf32>

// A serial statement of a region that writes nothing shared, a serial loop over private
// variables, and a region with no work-sharing loop at all.
void private_work(int n, float *a) {
#pragma omp parallel
  {
    int k = 0;
    for (int j = 0; j < 4; j++) k += j;
#pragma omp for
    for (int i = 0; i < n; i++) a[i] = k;
  }
#pragma omp parallel
  {
#pragma omp single nowait
    a[0] = 1;
  }
}
// CHECK-LABEL: func.func @private_work(
// CHECK: scf.for %j
// CHECK: agpu.parallel_for %i
// CHECK-NOT: agpu.parallel_for
// CHECK: memref.store %{{.*}}, %a[%{{.*}}] : memref<?xf32>
// CHECK: func.return

// A single block broadcasts a private variable of the region with copyprivate, and writes
// shared variables once.
void broadcast(int n, float c, float *a, float *out) {
  float total = 0;
#pragma omp parallel
  {
    float scale;
#pragma omp single copyprivate(scale)
    {
      scale = c * 2.0f;
      total = scale + 1.0f;
    }
#pragma omp for
    for (int i = 0; i < n; i++) a[i] *= scale;
  }
  out[0] = total;
}
// CHECK-LABEL: func.func @broadcast(
// CHECK: %[[SCALE:.*]] = arith.mulf %c, %{{.*}} : f32
// CHECK: memref.store %[[SCALE]], %scale[] : memref<f32>
// CHECK: agpu.parallel_for %i = %{{.*}} to %n step %{{.*}} : i32 {
// CHECK: memref.load %scale[] : memref<f32>

// WARN-NOT: warning
