// RUN: autogpu-opt %s | filecheck %s

// private(w) on a local array: each iteration gets its own array of the same size, declared at
// the top of the loop body, uninitialised; the body's names refer to it.
void scratch(int n, const float *x, float *y) {
  float w[3];
#pragma omp parallel for private(w)
  for (int i = 0; i < n; i++) {
    w[i % 3] = x[i];
    y[i] = w[i % 3];
  }
}
// CHECK-LABEL: func.func @scratch(
// CHECK: agpu.parallel_for %i =
// CHECK: %[[W:w.*]] = memref.alloca() : memref<3xf32>
// CHECK-NOT: scf.for
// CHECK: memref.store %{{.*}}, %[[W]][%{{.*}}] : memref<3xf32>
// CHECK: memref.load %[[W]][%{{.*}}] : memref<3xf32>

// firstprivate(w): the copy starts with the original's elements, copied one by one.
void shifted(int n, const float *x, float *y) {
  float w[2][2] = {{1, 2}, {3, 4}};
#pragma omp parallel for firstprivate(w)
  for (int i = 0; i < n; i++) {
    w[i % 2][1] += x[i];
    y[i] = w[0][1] + w[1][1];
  }
}
// CHECK-LABEL: func.func @shifted(
// CHECK: %[[ORIG:w]] = memref.alloca() : memref<4xf32>
// CHECK: agpu.parallel_for %i =
// CHECK: %[[COPY:w_1]] = memref.alloca() : memref<4xf32>
// CHECK-NEXT: scf.for %[[K:w_k]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT: %[[INDEX:.*]] = arith.index_cast %[[K]] : i32 to index
// CHECK-NEXT: %[[E:.*]] = memref.load %[[ORIG]][%[[INDEX]]] : memref<4xf32>
// CHECK-NEXT: memref.store %[[E]], %[[COPY]][%[[INDEX]]] : memref<4xf32>
// CHECK-NEXT: }
// CHECK: memref.store %{{.*}}, %[[COPY]][%{{.*}}] : memref<4xf32>
