// RUN: autogpu-opt %s -p agpu-out-of-core | filecheck %s
// RUN: autogpu-opt %s -p agpu-out-of-core,autogpu-vanilla -t cuda | filecheck %s --check-prefix=DESC

// An array a part writes whole and never reads is allocated for the part, not copied in
// (`alloc`): C of a row-major matmul, every C[i][j] of row i written once j covers [0, m).
void mm(int n, int m, int p, const float A[n][p], const float B[p][m], float C[n][m]) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      float s = 0.0f;
      for (int k = 0; k < p; k++)
        s += A[i][k] * B[k][j];
      C[i][j] = s;
    }
}
// CHECK-LABEL: func.func @mm(
// CHECK-SAME: arrays = [{name = "A", row = "p", read = ["agpu_part_lo * p", "agpu_part_hi * p"]}, {name = "B", row = "1", whole}, {name = "C", row = "m", write = ["agpu_part_lo * m", "agpu_part_hi * m"], alloc}]

// DESC: "name": "mm"
// DESC-SAME: {"name": "C", "row": "m", "write": ["agpu_part_lo * m", "agpu_part_hi * m"], "alloc": true}

// Three dimensions, the inner loops in either order: the in-row subscript j*q + k covers
// [0, p*q) whatever order the loops run in.
void copy3(int n, int p, int q, const double x[n][p][q], double y[n][p][q]) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int k = 0; k < q; k++)
      for (int j = 0; j < p; j++)
        y[i][j][k] = 2.0 * x[i][j][k];
}
// CHECK-LABEL: func.func @copy3(
// CHECK-SAME: {name = "y", row = "p * q", write = ["agpu_part_lo * p * q", "agpu_part_hi * p * q"], alloc}

// A one-dimensional array written at i + 2 by every iteration: written whole, allocated.
void shifted(int n, const float *x, float *y) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    y[i + 2] = x[i] * 2.0f;
}
// CHECK-LABEL: func.func @shifted(
// CHECK-SAME: {name = "y", row = "1", write = ["(agpu_part_lo + 2)", "(agpu_part_hi + 2)"], alloc}

// Not proven, so copied in (no `alloc`): the stencil leaves columns 0 and m - 1 of each row
// alone (the copy out writes whole rows back, so they must hold the caller's values) ...
void jacobi(int n, int m, const double in[n][m], double out[n][m]) {
#pragma omp parallel for collapse(2)
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < m - 1; j++)
      out[i][j] = 0.25 * (in[i - 1][j] + in[i + 1][j] + in[i][j - 1] + in[i][j + 1]);
}
// CHECK-LABEL: func.func @jacobi(
// CHECK-SAME: {name = "out", row = "m", write = ["agpu_part_lo * m", "agpu_part_hi * m"]}]

// ... a store under an `if` ...
void relu(int n, int m, const float x[n][m], float y[n][m]) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      if (x[i][j] > 0.0f)
        y[i][j] = x[i][j];
}
// CHECK-LABEL: func.func @relu(
// CHECK-SAME: {name = "y", row = "m", write = ["agpu_part_lo * m", "agpu_part_hi * m"]}]

// ... a store inside a loop that may not run (p = 0 writes nothing) ...
void last(int n, int m, int p, const float A[n][p], float C[n][m]) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      for (int k = 0; k < p; k++)
        C[i][j] = A[i][k];
}
// CHECK-LABEL: func.func @last(
// CHECK-SAME: {name = "C", row = "m", write = ["agpu_part_lo * m", "agpu_part_hi * m"]}]

// ... a row read as well as written (accumulated in place) ...
void accumulate(int n, int m, const float x[n][m], float y[n][m]) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      y[i][j] += x[i][j];
}
// CHECK-LABEL: func.func @accumulate(
// CHECK-SAME: {name = "y", row = "m", read = ["agpu_part_lo * m", "agpu_part_hi * m"], write = ["agpu_part_lo * m", "agpu_part_hi * m"]}

// ... and loops whose bounds are not the extents they index (j < p indexes a row of m).
void narrow(int n, int m, int p, const float x[n][m], float y[n][m]) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    for (int j = 0; j < p; j++)
      y[i][j] = x[i][j];
}
// CHECK-LABEL: func.func @narrow(
// CHECK-SAME: {name = "y", row = "m", write = ["agpu_part_lo * m", "agpu_part_hi * m"]}]
