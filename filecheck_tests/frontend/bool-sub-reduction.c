// RUN: autogpu-opt %s | filecheck %s
// `reduction(-: b)` on a _Bool: each serial update `b = (b - e) != 0` with `e` 0 or 1 is
// `b ^ e`, so the private copies combine with xor (docs/ir.md).
void toggles(int n, const _Bool *x, const int *y, _Bool *o) {
  _Bool s = 1;
#pragma omp parallel for reduction(-: s)
  for (int i = 0; i < n; i++) {
    s -= x[i];
    s = s - (y[i] > 3);
    s--;
  }
  o[0] = s;
}

// CHECK-LABEL: func.func @toggles(
// CHECK:         %[[S:.*]] = memref.alloca() : memref<i1>
// CHECK:         agpu.parallel_for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} : i32 reduction(xor %[[S]] : memref<i1>) {
// CHECK:           %[[OLD:.*]] = memref.load %[[S]][] : memref<i1>
// CHECK:           %[[WIDE:.*]] = arith.extui %[[OLD]] : i1 to i32
// CHECK:           %[[DIFF:.*]] = arith.subi %[[WIDE]], %{{.*}} overflow<nsw> : i32
// CHECK-NEXT:      %[[NEW:.*]] = arith.cmpi ne, %[[DIFF]], %{{.*}} : i32
// CHECK-NEXT:      memref.store %[[NEW]], %[[S]][] : memref<i1>
