// RUN: autogpu-opt %s | filecheck %s
// RUN: autogpu-opt %s | autogpu-opt | filecheck %s

// Every parameter kind: scalars of each type, pointers with const/restrict spellings, C99
// array parameters (flattened, extents recorded), `float A[]`, and `(void)`.

void scalars(int i, unsigned u, unsigned int ui, long l, unsigned long ul, size_t z, float f,
             double d, const int ci, long long ll, signed s) {}

// CHECK-LABEL: func.func @scalars(
// CHECK-SAME: %i: i32 {agpu.name = "i", agpu.ctype = "int"}
// CHECK-SAME: %u: i32 {agpu.name = "u", agpu.ctype = "unsigned"}
// CHECK-SAME: %ui: i32 {agpu.name = "ui", agpu.ctype = "unsigned"}
// CHECK-SAME: %l: i64 {agpu.name = "l", agpu.ctype = "long"}
// CHECK-SAME: %ul: i64 {agpu.name = "ul", agpu.ctype = "unsigned long"}
// CHECK-SAME: %z: i64 {agpu.name = "z", agpu.ctype = "size_t"}
// CHECK-SAME: %f: f32 {agpu.name = "f", agpu.ctype = "float"}
// CHECK-SAME: %d: f64 {agpu.name = "d", agpu.ctype = "double"}
// CHECK-SAME: %ci: i32 {agpu.name = "ci", agpu.ctype = "int", agpu.const}
// CHECK-SAME: %ll: i64 {agpu.name = "ll", agpu.ctype = "long"}
// CHECK-SAME: %s: i32 {agpu.name = "s", agpu.ctype = "int"})
// CHECK-NEXT: func.return

void pointers(float *a, const double *b, int *restrict c, const unsigned *__restrict__ d,
              long *__restrict e, float const *g, float *const h, size_t *z) {}

// CHECK-LABEL: func.func @pointers(
// CHECK-SAME: %a: memref<?xf32> {agpu.name = "a", agpu.ctype = "float"}
// CHECK-SAME: %b: memref<?xf64> {agpu.name = "b", agpu.ctype = "double", agpu.const}
// CHECK-SAME: %c: memref<?xi32> {agpu.name = "c", agpu.ctype = "int", agpu.restrict}
// CHECK-SAME: %d: memref<?xi32> {agpu.name = "d", agpu.ctype = "unsigned", agpu.const, agpu.restrict}
// CHECK-SAME: %e: memref<?xi64> {agpu.name = "e", agpu.ctype = "long", agpu.restrict}
// CHECK-SAME: %g: memref<?xf32> {agpu.name = "g", agpu.ctype = "float", agpu.const}
// CHECK-SAME: %h: memref<?xf32> {agpu.name = "h", agpu.ctype = "float"}
// CHECK-SAME: %z: memref<?xi64> {agpu.name = "z", agpu.ctype = "size_t"})

#define COLS 8
void arrays(int m, int n, float A[m][n], const double B[][n], float C[], float D[4][COLS],
            float E[restrict m], float F[m][n][4]) {}

// CHECK-LABEL: func.func @arrays(
// CHECK-SAME: %A: memref<?xf32> {agpu.name = "A", agpu.ctype = "float", agpu.extents = ["m", "n"]}
// CHECK-SAME: %B: memref<?xf64> {agpu.name = "B", agpu.ctype = "double", agpu.const, agpu.extents = ["?", "n"]}
// CHECK-SAME: %C: memref<?xf32> {agpu.name = "C", agpu.ctype = "float"}
// CHECK-SAME: %D: memref<?xf32> {agpu.name = "D", agpu.ctype = "float", agpu.extents = ["4", "8"]}
// CHECK-SAME: %E: memref<?xf32> {agpu.name = "E", agpu.ctype = "float", agpu.restrict, agpu.extents = ["m"]}
// CHECK-SAME: %F: memref<?xf32> {agpu.name = "F", agpu.ctype = "float", agpu.extents = ["m", "n", "4"]}

void no_params(void) {}
// CHECK-LABEL: func.func @no_params() {
// CHECK-NEXT: func.return

void empty_list() { return; }
// CHECK-LABEL: func.func @empty_list() {
// CHECK-NEXT: func.return

// A prototype declares nothing to compile, also before the definition.
void later(int n);
void defined_after_prototype(int n);
void defined_after_prototype(int n) {}
// CHECK-LABEL: func.func @defined_after_prototype(%n: i32
void reassigned_param(int n, float *out) {
  n = n * 2;
  out[0] = n;
}
// CHECK-LABEL: func.func @reassigned_param(%n: i32
// CHECK: %[[SLOT:.*]] = memref.alloca() : memref<i32>
// CHECK-NEXT: memref.store %n, %[[SLOT]][] : memref<i32>
// CHECK: memref.load %[[SLOT]][]

// Extents that are expressions of earlier parameters (issue 18: `double A[n+1][m+1]`) are
// recorded as the text the runtime evaluates, with casts where C's type is unsigned, and a
// subscript's row stride is computed from the parameters' entry values, as C evaluates an
// extent when the function is entered (here `m` changes afterwards).
void extent_expressions(int n, int m, unsigned u, long l, double A[n + 1][m + 1],
                        float B[u][u - 1], float C[2][l / 2], float D[n][(unsigned)m % 3]) {
  m = 0;
  A[1][2] = 0.0;
}
// CHECK-LABEL: func.func @extent_expressions(
// CHECK-SAME: %[[M:[a-z0-9_]+]]: i32 {agpu.name = "m"
// CHECK-SAME: agpu.extents = ["n + 1", "m + 1"]
// CHECK-SAME: agpu.extents = ["u", "(unsigned)(u - (unsigned)(1))"]
// CHECK-SAME: agpu.extents = ["2", "l / 2"]
// CHECK-SAME: agpu.extents = ["n", "(unsigned)((unsigned)(m) % (unsigned)(3))"]
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: %[[SLOT:.*]] = memref.alloca() : memref<i32>
// CHECK: memref.store %{{.*}}, %[[SLOT]][] : memref<i32>
// CHECK-NOT: memref.load %[[SLOT]]
// CHECK: %[[STRIDE:.*]] = arith.addi %[[M]], %[[ONE]] overflow<nsw> : i32
// CHECK-NEXT: %[[WIDE:.*]] = arith.extsi %[[STRIDE]] : i32 to i64
// CHECK-NEXT: %[[ROW:.*]] = arith.muli %{{.*}}, %[[WIDE]] overflow<nsw> : i64
// CHECK-NEXT: arith.addi %[[ROW]], %{{.*}} overflow<nsw> : i64
