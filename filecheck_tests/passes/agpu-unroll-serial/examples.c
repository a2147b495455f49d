// RUN: autogpu-opt %examples/matmul.c -p 'agpu-stage-accumulations{assume_no_alias=true},agpu-unroll-serial{factor=4}' | filecheck %s --check-prefix=MM
// RUN: autogpu-opt %s -p 'agpu-unroll-serial{loops=c factor=2}' | filecheck %s

// mm_1 -> the paper's unrolled k loop: four accumulations into A_acc per iteration, and a
// remainder loop for p not divisible by 4.
// MM-LABEL: func.func @matmul
// MM: %[[ACC:.*]] = memref.alloca() {{.*}}: memref<f32>
// MM: scf.for %[[K:.*]] = %{{.*}} to %[[MAINUB:.*]] step %{{.*}} : i32 {
// MM-COUNT-4: memref.store %{{.*}}, %[[ACC]][]
// MM-NOT: memref.store
// MM: }
// MM-NEXT: scf.for %{{.*}} = %[[MAINUB]] to %p step
// MM: memref.store %{{.*}}, %[[ACC]][]
// MM-NEXT: }

// C input with loops chosen by name: the serial c loop only.
// CHECK-LABEL: func.func @row_sums
// CHECK: agpu.parallel_for
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK: arith.addi %[[C]], %{{.*}} : i32
// CHECK: }
// CHECK-NEXT: scf.for
void row_sums(int rows, int n, const double *restrict a, double *restrict sums) {
#pragma omp parallel for
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < n; c++)
      sums[r] += a[r * n + c];
}
