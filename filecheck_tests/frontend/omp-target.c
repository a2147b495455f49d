// RUN: autogpu-opt %s 2>/dev/null | filecheck %s
// RUN: autogpu-opt %s 2>&1 >/dev/null | filecheck %s --check-prefix=WARN

// Every combined construct that makes a loop parallel (docs/openmp_directives.md) becomes the
// same agpu.parallel_for as `parallel for`, with its collapse and reduction clauses; `map`,
// `num_teams`, `thread_limit`, `device`, `nowait`, ... are accepted.

void target_teams(int n, const float *x, float *y) {
#pragma omp target teams distribute parallel for map(to: x[0:n]) map(from: y[0:n]) num_teams(4) thread_limit(128) device(0) nowait
  for (int i = 0; i < n; i++) y[i] = x[i] + 1;
}
// CHECK-LABEL: func.func @target_teams(
// CHECK: agpu.parallel_for %i = %{{.*}} to %n step %{{.*}} : i32 {
// Constant launch bounds are recorded on the loop (docs/ir.md).
// CHECK: } {agpu.num_teams = 4 : i64, agpu.thread_limit = 128 : i64}

void target_collapse_reduction(int n, const double *a, double *out) {
  double s = 0;
#pragma omp target teams distribute parallel for simd collapse(2) reduction(+: s) map(tofrom: s) map(always, to: a[0:n*n]) simdlen(4) dist_schedule(static)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      s += a[i * n + j];
  out[0] = s;
}
// CHECK-LABEL: func.func @target_collapse_reduction(
// CHECK: %[[S:.*]] = memref.alloca() : memref<f64>
// CHECK: agpu.parallel_for %i = {{.*}} reduction(add %[[S]] : memref<f64>) {
// CHECK: agpu.parallel_for %j = {{.*}} reduction(add %[[S]] : memref<f64>) {

void spellings(int n, float *a) {
#pragma omp parallel for simd
  for (int i = 0; i < n; i++) a[i] = 1;
#pragma omp target parallel for
  for (int i = 0; i < n; i++) a[i] = 2;
#pragma omp target parallel for simd
  for (int i = 0; i < n; i++) a[i] = 3;
#pragma omp target teams distribute
  for (int i = 0; i < n; i++) a[i] = 4;
#pragma omp teams distribute parallel for
  for (int i = 0; i < n; i++) a[i] = 5;
}
// CHECK-LABEL: func.func @spellings(
// CHECK-COUNT-5: agpu.parallel_for %i{{(_[0-9]+)?}} = %{{.*}} to %n step %{{.*}} : i32 {
// CHECK-NOT: agpu.parallel_for
// CHECK: func.return

// Lone target, teams and target data around a block: regions whose loops are the parallel
// ones; target and target data run their other statements once.
void regions(int n, float *a) {
#pragma omp target data map(tofrom: a[0:n])
  {
#pragma omp target
    {
      a[0] = 7;
#pragma omp teams distribute parallel for
      for (int i = 1; i < n; i++) a[i] = 8;
    }
#pragma omp target teams thread_limit(64)
    {
#pragma omp distribute parallel for
      for (int i = 0; i < n; i++) a[i] += 1;
#pragma omp distribute
      for (int i = 0; i < n; i++) a[i] *= 2;
    }
  }
}
// CHECK-LABEL: func.func @regions(
// CHECK: memref.store %{{.*}}, %a[%{{.*}}] : memref<?xf32>
// CHECK: agpu.parallel_for %i = %{{.*}} to %n step %{{.*}} : i32 {
// CHECK: agpu.parallel_for %i_1 = %{{.*}} to %n step %{{.*}} : i32 {
// CHECK: } {agpu.thread_limit = 64 : i64}
// CHECK: agpu.parallel_for %i_2 = %{{.*}} to %n step %{{.*}} : i32 {
// CHECK: } {agpu.thread_limit = 64 : i64}

// An array mapped `to` the device only but written: a warning (neither OpenMP nor autogpu
// copies it back: docs/ir.md, "Data mapping").
void written_to(int n, float *a) {
#pragma omp target teams distribute parallel for map(to: a[0:n])
  for (int i = 0; i < n; i++) a[i] = 0;
}
// CHECK-LABEL: func.func @written_to(
// CHECK: agpu.parallel_for %i
// WARN: omp-target.c:79:31: warning: 'a' is mapped 'to' (copied to the device only) but is written here: the write stays on the device (it is not copied back); map it 'tofrom' to get it back
// WARN-NOT: warning
