// RUN: autogpu-opt %s | filecheck %s
// RUN: autogpu-opt %s | autogpu-opt | filecheck %s

/* A block comment before the function,
   over several lines. */
void commented(/* inline */ int n, float *a /* trailing */) {
  // a line comment
  for (int i = 0; /* between */ i < n; i++) // after the header
    a[i] = /* inside
              an expression */ 1;
  /* #pragma omp parallel for (a directive inside a comment is no directive) */
}
// CHECK-LABEL: func.func @commented(%n: i32
// CHECK: scf.for %i = %{{.*}} to %n
// CHECK-NOT: agpu.parallel_for
