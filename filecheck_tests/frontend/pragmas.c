// RUN: autogpu-opt %s 2>/dev/null | filecheck %s
// RUN: autogpu-opt %s 2>/dev/null | autogpu-opt | filecheck %s
// RUN: autogpu-opt %s 2>&1 >/dev/null | filecheck %s --check-prefix=WARN

// `#pragma omp parallel for` marks a canonical loop as agpu.parallel_for; collapse(n) marks
// the n perfectly nested loops; reduction clauses list the variables' slots.

void plain(int n, float *a) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) a[i] = 0;
}
// CHECK-LABEL: func.func @plain(
// CHECK: agpu.parallel_for %i = %c0 to %n step %c1 : i32 {

void collapse2(int n, int m, float *a) {
  #pragma omp parallel for collapse(2)
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < m; j++) {
      a[i * m + j] = 0;
    }
  }
}
// CHECK-LABEL: func.func @collapse2(
// CHECK: agpu.parallel_for %i = %{{.*}} to %n step %{{.*}} : i32 {
// CHECK: agpu.parallel_for %j = %{{.*}} to %m step %{{.*}} : i32 {

#define DEPTH 3
void collapse3_and_serial(int n, float *a) {
#pragma omp parallel for collapse(DEPTH)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (long k = 0; k < n; k++)
        for (int l = 0; l < n; l++)
          a[((i * n + j) * n + k) * n + l] += l;
}
// CHECK-LABEL: func.func @collapse3_and_serial(
// CHECK: agpu.parallel_for %i
// CHECK: agpu.parallel_for %j
// CHECK: agpu.parallel_for %k = %{{.*}} to %{{.*}} step %{{.*}} : i64 {
// CHECK: scf.for %l

void reductions(int n, const float *x, const int *v, float *out, int *iout) {
  float sum = 0.0f, prod = 1.0f;
  int lo = 1 << 30, bits = 0, all = 1;
#pragma omp parallel for reduction(+: sum) reduction(*: prod) reduction(min: lo) reduction(|: bits), reduction(&&: all)
  for (int i = 0; i < n; i++) {
    sum += x[i];
    prod *= x[i];
    lo = min(lo, v[i]);
    bits |= v[i];
    all = all && v[i];
  }
  out[0] = sum + prod;
  iout[0] = lo + bits + all;
}
// CHECK-LABEL: func.func @reductions(
// CHECK: %sum = memref.alloca() : memref<f32>
// CHECK: %prod = memref.alloca() : memref<f32>
// CHECK: %lo = memref.alloca() : memref<i32>
// CHECK: %bits = memref.alloca() : memref<i32>
// CHECK: %all = memref.alloca() : memref<i32>
// CHECK: agpu.parallel_for %i = %{{.*}} to %n step %{{.*}} : i32 reduction(add %sum : memref<f32>, mul %prod : memref<f32>, min %lo : memref<i32>, or %bits : memref<i32>, land %all : memref<i32>) {

void reduction_list(int n, const double *x, double *out) {
  double s = 0, t = 0;
#pragma omp parallel for reduction(-: s, t) collapse(1) schedule(static)
  for (int i = 0; i < n; i++) {
    s -= x[i];
    t -= 2 * x[i];
  }
  out[0] = s + t;
}
// CHECK-LABEL: func.func @reduction_list(
// CHECK: agpu.parallel_for %i = %{{.*}} to %n step %{{.*}} : i32 reduction(sub %s : memref<f64>, sub %t : memref<f64>) {

// A collapsed nest lists its reductions on each of its loops.
void collapsed_reduction(int n, const float *x, float *out) {
  float s = 0;
#pragma omp parallel for collapse(2) reduction(max: s)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      s = fmaxf(s, x[i * n + j]);
  out[0] = s;
}
// CHECK-LABEL: func.func @collapsed_reduction(
// CHECK: agpu.parallel_for %i = {{.*}} reduction(max %s : memref<f32>) {
// CHECK: agpu.parallel_for %j = {{.*}} reduction(max %s : memref<f32>) {

// A decreasing parallel loop runs over its normalised counter.
void decreasing(int n, float *a) {
#pragma omp parallel for
  for (int i = n; i > 0; i--) a[i] = 1;
}
// CHECK-LABEL: func.func @decreasing(
// CHECK: agpu.parallel_for %i_k = %c0 to %{{.*}} step %c1 : i32 {
// CHECK: %i = arith.subi %n, %i_k : i32

// Other pragmas are kept as warnings and ignored; the loop stays serial.
void others(int n, float *a) {
#pragma unroll 4
  for (int i = 0; i < n; i++) a[i] = 0;
#pragma omp simd
  for (int i = 0; i < n; i++) a[i] = 0;
#pragma GCC ivdep
  for (int i = 0; i < n; i++) a[i] = 0;
}
// CHECK-LABEL: func.func @others(
// CHECK-NOT: agpu.parallel_for
// CHECK: func.return
// Warnings come in source order; accepted clauses (schedule above) get none:
// WARN-NOT: schedule
// WARN: pragmas.c:100:9: warning: ignoring '#pragma unroll 4': not a directive autogpu reads (docs/openmp_directives.md)
// WARN-NEXT: {{^}}#pragma unroll 4
// WARN-NEXT: {{^        \^$}}
// WARN: pragmas.c:102:9: warning: ignoring '#pragma omp simd'
// WARN: pragmas.c:104:9: warning: ignoring '#pragma GCC ivdep'
// WARN-NOT: warning
