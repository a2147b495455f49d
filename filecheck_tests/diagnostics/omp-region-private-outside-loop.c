// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// A region's private variable used by the region's own statements: every thread of the team
// would run them on its copy; autogpu makes region privates each work-sharing loop's own only.
void f(int n, float *y) {
  float t;
#pragma omp parallel private(t)
  {
    t = 2.0f;
#pragma omp for
    for (int i = 0; i < n; i++)
      y[i] = t;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-region-private-outside-loop.c:8:5: error: 't' is private in '#pragma omp parallel' at line 6: autogpu supports such a variable only inside the region's work-sharing loops; declare it inside the region instead
// CHECK-NEXT: {{^    t = 2.0f;$}}
// CHECK-NEXT: {{^ {4}\^$}}
// CHECK-NOT: Traceback
