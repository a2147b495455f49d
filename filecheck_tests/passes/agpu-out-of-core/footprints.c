// RUN: autogpu-opt %s -p agpu-out-of-core | filecheck %s
// RUN: autogpu-opt %s -p agpu-out-of-core,autogpu-vanilla -t cuda | filecheck %s --check-prefix=DESC

// A 5-point stencil: a part [lo, hi) of i reads rows lo-1..hi of `in` and writes rows lo..hi-1
// of `out`; the loop is bounded by the part's two new parameters.
void jacobi(int n, int m, const double in[n][m], double out[n][m]) {
#pragma omp parallel for collapse(2)
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < m - 1; j++)
      out[i][j] = 0.25 * (in[i - 1][j] + in[i + 1][j] + in[i][j - 1] + in[i][j + 1]);
}
// CHECK-LABEL: func.func @jacobi(
// CHECK-SAME: %[[N:[^:]*]]: i32 {{.*}} %[[LO:agpu_part_lo[^:]*]]: i32 {agpu.name = "agpu_part_lo", agpu.ctype = "int", agpu.part_bound}, %[[HI:agpu_part_hi[^:]*]]: i32 {agpu.name = "agpu_part_hi", agpu.ctype = "int", agpu.part_bound})
// CHECK-SAME: agpu.parts = {lo = "agpu_part_lo", hi = "agpu_part_hi", lb = "1", ub = "(n - 1)", arrays = [{name = "in", row = "m", read = ["(agpu_part_lo - 1) * m", "(agpu_part_hi + 1) * m"]}, {name = "out", row = "m", write = ["agpu_part_lo * m", "agpu_part_hi * m"]}]}
// CHECK:      %[[C1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[UB:.*]] = arith.subi %[[N]], %[[C1]]
// CHECK-NEXT: %[[FIRST:.*]] = arith.maxsi %[[C1]], %[[LO]] : i32
// CHECK-NEXT: %[[END:.*]] = arith.minsi %[[UB]], %[[HI]] : i32
// CHECK-NEXT: agpu.parallel_for %{{.*}} = %[[FIRST]] to %[[END]] step %[[C1]] : i32

// DESC: "name": "jacobi"
// DESC-SAME: "parts": {"lo": "agpu_part_lo", "hi": "agpu_part_hi", "lb": "1", "ub": "(n - 1)"

// A matrix-vector product reads x whole in every part; y in place, its own rows only.
void gemv(int n, int m, const float A[n][m], const float *x, float *y) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      y[i] = y[i] + A[i][j] * x[j];
}
// CHECK-LABEL: func.func @gemv(
// CHECK-SAME: arrays = [{name = "y", row = "1", read = ["agpu_part_lo", "agpu_part_hi"], write = ["agpu_part_lo", "agpu_part_hi"]}, {name = "A", row = "m", read = ["agpu_part_lo * m", "agpu_part_hi * m"]}, {name = "x", row = "1", whole}]

// Shifted writes are owned too: iteration i writes y[i + 2].
void shifted(int n, const float *x, float *y) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    y[i + 2] = x[i] * 2.0f;
}
// CHECK-LABEL: func.func @shifted(
// CHECK-SAME: {name = "y", row = "1", write = ["(agpu_part_lo + 2)", "(agpu_part_hi + 2)"], alloc}

// 64-bit loops are normalised by the frontend (i = i' + 1, i' from 0): the bounds are printed
// from the parameters, min() included, and the rows follow the normalised index.
void jacobi64(long n, long m, const double in[n][m], double out[n][m]) {
#pragma omp parallel for collapse(2)
  for (long i = 1; i < n - 1; i++)
    for (long j = 1; j < m - 1; j++)
      out[i][j] = in[i - 1][j] + in[i + 1][j];
}
// CHECK-LABEL: func.func @jacobi64(
// CHECK-SAME: lb = "0", ub = "((n - 1) - min(1, (n - 1)))", arrays = [{name = "in", row = "m", read = ["agpu_part_lo * m", "(agpu_part_hi + 2) * m"]}, {name = "out", row = "m", write = ["(agpu_part_lo + 1) * m", "(agpu_part_hi + 1) * m"]}]
