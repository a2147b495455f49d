// RUN: autogpu-opt %s | filecheck %s
// RUN: autogpu-opt %s | autogpu-opt | filecheck %s

// Local arrays: a flat memref.alloca of their constant size, indexed row-major like parameters;
// an initializer stores every element (nested braces start a row; the rest is zero).
void scratch(int n, const float *x, float *y) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    float acc[2][3] = {{1.5f}, {x[i], 2}};
    int lut[] = {7, 8, 9};
    acc[1][2] += lut[i % 3];
    y[i] = acc[1][2] + acc[0][0];
  }
}
// CHECK-LABEL: func.func @scratch(
// CHECK: agpu.parallel_for %i =
// CHECK: %[[ACC:acc]] = memref.alloca() : memref<6xf32>
// CHECK-NEXT: memref.store %{{.*}}, %[[ACC]][%c0_index] : memref<6xf32>
// CHECK-NEXT: memref.store %[[ZERO:.*]], %[[ACC]][%c1_index] : memref<6xf32>
// CHECK-NEXT: memref.store %[[ZERO]], %[[ACC]][%c2_index] : memref<6xf32>
// CHECK: %[[X:.*]] = memref.load %x[%{{.*}}] : memref<?xf32>
// CHECK-NEXT: memref.store %[[X]], %[[ACC]][%c3_index] : memref<6xf32>
// CHECK: %[[LUT:lut]] = memref.alloca() : memref<3xi32>
// CHECK: memref.load %[[LUT]][%{{.*}}] : memref<3xi32>
// CHECK: memref.store %{{.*}}, %[[ACC]][%{{.*}}] : memref<6xf32>

// A file-scope table is declared again in each function that reads it.
static const double W[3] = {0.25, 0.5, 0.25};
void table(int n, const double *x, double *y) {
  for (int i = 1; i < n - 1; i++)
    y[i] = W[0] * x[i - 1] + W[1] * x[i] + W[2] * x[i + 1];
}
// CHECK-LABEL: func.func @table(
// CHECK: %[[W:W]] = memref.alloca() : memref<3xf64>
// CHECK: scf.for
// CHECK: memref.load %[[W]][%{{.*}}] : memref<3xf64>

// A local pointer (restrict or not) that names a whole array is another name for it.
void aliases(int n, const float *restrict x, float *y) {
  const float *restrict in = x;
  float *restrict out = y;
  float t[2] = {1, 2};
  float *tt = t;
  for (int i = 0; i < n; i++)
    out[i] = in[i] + tt[i % 2];
}
// CHECK-LABEL: func.func @aliases(
// CHECK: %[[T:t]] = memref.alloca() : memref<2xf32>
// CHECK: scf.for
// CHECK: memref.load %x[%{{.*}}] : memref<?xf32>
// CHECK: memref.load %[[T]][%{{.*}}] : memref<2xf32>
// CHECK: memref.store %{{.*}}, %y[%{{.*}}] : memref<?xf32>
