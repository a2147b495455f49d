// RUN: autogpu-opt %s | filecheck %s
// RUN: autogpu-opt %s | autogpu-opt | filecheck %s

// Decreasing loops are normalised to an increasing counter k: i = start - k * step, over
// ceil((start - bound) / step) iterations (docs/ir.md).

void down(int n, float *a) {
  for (int i = n - 1; i >= 0; i--) a[i] = 0;
}
// CHECK-LABEL: func.func @down(
// CHECK: %[[START:.*]] = arith.subi %n, %[[C1:c[0-9]+]] overflow<nsw> : i32
// CHECK: %[[DIFF:.*]] = arith.subi %[[START]], %[[C0:.*]] : i32
// CHECK: %[[TRIP:.*]] = arith.addi %[[DIFF]], %[[C1]] : i32
// CHECK: scf.for %i_k = %[[C0]] to %[[TRIP]] step %[[C1]] : i32 {
// CHECK: %i = arith.subi %[[START]], %i_k : i32
// CHECK-NEXT: arith.index_cast %i : i32 to index

void down_by_three(float *a) {
  for (int k = 10; k > 0; k -= 3) a[k] = 0;
}
// CHECK-LABEL: func.func @down_by_three(
// CHECK: %[[C4:.*]] = arith.constant 4 : i32
// CHECK: scf.for %k_k = %{{.*}} to %[[C4]] step %{{.*}} : i32 {
// CHECK: %[[OFF:.*]] = arith.muli %k_k, %{{.*}} : i32
// CHECK-NEXT: %k = arith.subi %{{.*}}, %[[OFF]] : i32

// Unsigned int: counted in i64, where a loop that does not run has a negative trip count.
void down_unsigned(unsigned n, unsigned b, float *a) {
  for (unsigned j = n; j > b; --j) a[j] = 0;
}
// CHECK-LABEL: func.func @down_unsigned(
// CHECK: %[[N:.*]] = arith.extui %n : i32 to i64
// CHECK: %[[B:.*]] = arith.extui %b : i32 to i64
// CHECK: %[[TRIP:.*]] = arith.subi %[[N]], %[[B]] : i64
// CHECK: scf.for %j_k = %{{.*}} to %[[TRIP]] step %{{.*}} : i64 {
// CHECK: %[[J:.*]] = arith.subi %[[N]], %j_k : i64
// CHECK-NEXT: %j = arith.trunci %[[J]] : i64 to i32

// size_t: the trip count is computed in unsigned arithmetic, exact when the bounds straddle 2^63:
// n - min(b, n) is n - b when the loop runs and 0 when it does not (no select, which a launch
// size cannot express).
void down_size_t(size_t n, size_t b, float *a) {
  for (size_t j = n; j > b; --j) a[j] = 0;
}
// CHECK-LABEL: func.func @down_size_t(
// CHECK: %[[NEAR:.*]] = arith.minui %b, %n : i64
// CHECK-NEXT: %[[TRIP:.*]] = arith.subi %n, %[[NEAR]] : i64
// CHECK-NEXT: scf.for %j_k = %{{.*}} to %[[TRIP]]
// CHECK: %j = arith.subi %n, %j_k : i64

// != on an unsigned variable wraps around: j = n - 1, ..., 0 stops at 4294967295 after n
// iterations, (start - bound) modulo 2^32; i++ up to a smaller bound runs past the largest value.
void down_wrapping(unsigned n, float *a) {
  for (unsigned j = n - 1u; j != 4294967295u; j--) a[j] = 0;
}
// CHECK-LABEL: func.func @down_wrapping(
// CHECK: %[[START:.*]] = arith.subi %n, %{{.*}} : i32
// CHECK-NEXT: %[[SPAN:.*]] = arith.subi %[[START]], %{{.*}} : i32
// CHECK-NEXT: %[[TRIP:.*]] = arith.extui %[[SPAN]] : i32 to i64
// CHECK: scf.for %j_k = %{{.*}} to %[[TRIP]] step %{{.*}} : i64 {

void up_wrapping(unsigned n, unsigned b, float *a) {
  for (unsigned j = n; j != b; j++) a[j] = 0;
}
// CHECK-LABEL: func.func @up_wrapping(
// CHECK: %[[SPAN:.*]] = arith.subi %b, %n : i32
// CHECK-NEXT: %[[WIDE:.*]] = arith.extui %[[SPAN]] : i32 to i64
// CHECK-NEXT: %[[LB:.*]] = arith.extui %n : i32 to i64
// CHECK-NEXT: %[[UB:.*]] = arith.addi %[[LB]], %[[WIDE]] : i64
// CHECK-NEXT: scf.for %j_wide = %[[LB]] to %[[UB]] step %{{.*}} : i64 {
// CHECK: %j = arith.trunci %j_wide : i64 to i32

void down_runtime_step(int n, int s, float *a) {
  for (int i = n; i > 0; i = i - s) a[i] = 0;
}
// CHECK-LABEL: func.func @down_runtime_step(
// CHECK: arith.divsi
// CHECK: scf.for %i_k
// CHECK: arith.muli %i_k, %s : i32
