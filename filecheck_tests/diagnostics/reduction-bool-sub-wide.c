// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// `reduction(-: b)` on a _Bool subtracts values of 0 or 1: `b - 2` is nonzero whatever `b`
// is, which no combination of partial results can reproduce.
void f(int n, const int *x, _Bool *o) {
  _Bool b = 0;
#pragma omp parallel for reduction(-: b)
  for (int i = 0; i < n; i++)
    b -= x[i];
  o[0] = b;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}reduction-bool-sub-wide.c:8:7: error: this update of the _Bool 'b' of 'reduction(-: b)' is not 'b -= e', 'b = b - e' or 'b--' with 'e' a _Bool or a comparison (0 or 1): only those are 'b ^= e', whose partial results combine in any order (OpenMP's '+' combiner would depend on how the threads split the loop; cast 'e' to _Bool or use 'reduction(^: b)')
// CHECK-NEXT: {{^    b -= x\[i\];$}}
// CHECK-NEXT: {{^      \^$}}
