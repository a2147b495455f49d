// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// OpenMP allows lastprivate on loops (and sections, distribute), not on a parallel region.
void f(int n, float *y) {
  float t = 0.0f;
#pragma omp parallel lastprivate(t)
  {
#pragma omp for
    for (int i = 0; i < n; i++)
      y[i] = t;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-region-lastprivate.c:5:34: error: 'lastprivate' is not a clause of '#pragma omp parallel'
// CHECK-NEXT: {{^\#pragma omp parallel lastprivate\(t\)$}}
// CHECK-NEXT: {{^ {33}\^$}}
// CHECK-NOT: Traceback
