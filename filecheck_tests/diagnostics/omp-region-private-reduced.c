// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// A loop reducing into a variable its region made private: the sum would land in copies
// the region discards.
void f(int n, const float *x, float *out) {
  float s = 0.0f;
#pragma omp parallel private(s)
  {
#pragma omp for reduction(+: s)
    for (int i = 0; i < n; i++)
      s += x[i];
  }
  out[0] = s;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-region-private-reduced.c:8:9: error: 's' is private in the '#pragma omp parallel' region at line 6: a reduction of this loop would combine into each thread's copy, which the region then discards; reduce it on the region instead
// CHECK-NEXT: {{^\#pragma omp for reduction\(\+: s\)$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
