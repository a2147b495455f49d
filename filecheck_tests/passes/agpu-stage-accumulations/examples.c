// RUN: autogpu-opt %examples/matmul.c -p 'agpu-stage-accumulations{assume_no_alias=true}' | filecheck %s --check-prefix=MM
// RUN: autogpu-opt %examples/matmul.c -p agpu-stage-accumulations | filecheck %s --check-prefix=MM-DEFAULT
// RUN: autogpu-opt %s -p agpu-stage-accumulations | filecheck %s

// examples/matmul.c, the paper's mm_0 -> mm_1: A[i + j*m] lives in A_acc across the k loop.
// MM-LABEL: func.func @matmul
// MM: agpu.parallel_for %[[I:.*]] = {{.*}} {
// MM: %[[ACC:.*]] = memref.alloca() {{.*}}: memref<f32>
// MM: scf.if
// MM: memref.load %A[
// MM-NEXT: memref.store %{{.*}}, %[[ACC]][]
// MM-NEXT: scf.for %k =
// MM-NOT: %A[
// MM: }
// MM-NEXT: memref.load %[[ACC]][]
// MM-NEXT: memref.store %{{.*}}, %A[
// MM-DEFAULT-LABEL: func.func @matmul
// MM-DEFAULT-NOT: _acc

// C input: a restrict output is staged without the option (the loop is decreasing: the
// frontend's counter k runs up, i = n - 1 - k).
// CHECK-LABEL: func.func @row_sums
// CHECK: agpu.parallel_for %[[R:.*]] = {{.*}} {
// CHECK: %[[ACC:.*]] = memref.alloca() {{.*}}: memref<f64>
// CHECK: scf.for
// CHECK-NOT: %sums[
// CHECK: }
// CHECK-NEXT: memref.load %[[ACC]][]
// CHECK-NEXT: memref.store %{{.*}}, %sums[
void row_sums(int rows, int n, const double *restrict a, double *restrict sums) {
#pragma omp parallel for
  for (int r = 0; r < rows; r++)
    for (int c = n - 1; c >= 0; c--)
      sums[r] += a[r * n + c];
}
