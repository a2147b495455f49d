// RUN: autogpu-opt %s | filecheck %s
// RUN: autogpu-opt %s | autogpu-opt | filecheck %s

// Canonical for loops become scf.for over the induction variable's C type.

void forms(int n, float *a) {
  for (int i = 0; i < n; i++) a[i] = 1;
  for (int i = 0; i <= n; ++i) a[i] = 2;
  for (int i = 0; n > i; i += 2) a[i] = 3;
  for (int i = 1; i != n; i = i + 1) a[i] = 4;
  for (int i = 0; i < n; i = 3 + i) a[i] = 5;
  for (int i = 0; i < n; i -= -2) a[i] = 6;
}
// CHECK-LABEL: func.func @forms(
// CHECK: %[[C0:.*]] = arith.constant 0 : i32
// CHECK: %[[C1:.*]] = arith.constant 1 : i32
// CHECK: %[[C2:.*]] = arith.constant 2 : i32
// CHECK: %[[C3:.*]] = arith.constant 3 : i32
// CHECK: scf.for %i = %[[C0]] to %n step %[[C1]] : i32 {
// CHECK: %[[UB:.*]] = arith.addi %n, %[[C1]] : i32
// CHECK: scf.for %{{.*}} = %[[C0]] to %[[UB]] step %[[C1]] : i32 {
// CHECK: scf.for %{{.*}} = %[[C0]] to %n step %[[C2]] : i32 {
// CHECK: scf.for %{{.*}} = %[[C1]] to %n step %[[C1]] : i32 {
// CHECK: scf.for %{{.*}} = %[[C0]] to %n step %[[C3]] : i32 {
// CHECK: scf.for %{{.*}} = %[[C0]] to %n step %[[C2]] : i32 {
// CHECK-NOT: scf.while

// A loop-invariant runtime step, and 64-bit and unsigned induction variables. A 64-bit loop
// that does not run from 0 by 1 counts k up to its trip count ceil((n - min(0, n)) / s), in
// unsigned arithmetic that cannot overflow, and i = k * s; one from 0 by 1 counts i itself. An
// unsigned int loop counts in i64 (scf.for compares signed; zero-extended bounds compare as C
// compares them, also across 2^31), and the C variable is the truncated counter.
void types(long n, size_t m, unsigned u, int s, float *a) {
  for (long i = 0; i < n; i += s) a[i] = 0;
  for (size_t j = 0; j < m; j++) a[j] = 0;
  for (unsigned k = 0; k < u; k++) a[k] = 0;
}
// CHECK-LABEL: func.func @types(
// CHECK: %[[S:.*]] = arith.extsi %s : i32 to i64
// CHECK-NEXT: %[[NEAR:.*]] = arith.minsi %{{.*}}, %n : i64
// CHECK-NEXT: %[[DIST:.*]] = arith.subi %n, %[[NEAR]] : i64
// CHECK-NEXT: %[[TRIP:.*]] = arith.ceildivui %[[DIST]], %[[S]] : i64
// CHECK-NEXT: scf.for %i_k = %{{.*}} to %[[TRIP]] step %{{.*}} : i64 {
// CHECK: %i = arith.muli %i_k, %[[S]] : i64
// CHECK: scf.for %j = %{{.*}} to %m step %{{.*}} : i64 {
// CHECK: %[[U:.*]] = arith.extui %u : i32 to i64
// CHECK: scf.for %k_wide = %{{.*}} to %[[U]] step %{{.*}} : i64 {
// CHECK: %k = arith.trunci %k_wide : i64 to i32

// The bound is evaluated once, before the loop, as C allows when the body cannot change it.
void bound_once(int n, float *a) {
  for (int i = 0; i < n - 1; i++) a[i] = a[i + 1];
}
// CHECK-LABEL: func.func @bound_once(
// CHECK: %[[UB:.*]] = arith.subi %n, %{{.*}} : i32
// CHECK-NEXT: scf.for %i = %{{.*}} to %[[UB]]

// A 64-bit unsigned loop that does not start at 0 by 1 counts k from 0 to its unsigned trip
// count ceil((n - min(lo, n)) / s), exact when lo and n straddle 2^63, where a signed comparison
// of lo with n would be inverted; i = lo + k * s.
void from_ulong(unsigned long lo, unsigned long n, unsigned long s, float *a) {
  for (unsigned long i = lo; i < n; i += s) a[i] = 0;
}
// CHECK-LABEL: func.func @from_ulong(
// CHECK: %[[NEAR:.*]] = arith.minui %lo, %n : i64
// CHECK-NEXT: %[[DIST:.*]] = arith.subi %n, %[[NEAR]] : i64
// CHECK-NEXT: %[[TRIP:.*]] = arith.ceildivui %[[DIST]], %s : i64
// CHECK-NEXT: scf.for %i_k = %{{.*}} to %[[TRIP]] step %{{.*}} : i64 {
// CHECK-NEXT: %cst{{.*}} = arith.constant
// CHECK-NEXT: %[[OFF:.*]] = arith.muli %i_k, %s : i64
// CHECK-NEXT: %i = arith.addi %lo, %[[OFF]] : i64
