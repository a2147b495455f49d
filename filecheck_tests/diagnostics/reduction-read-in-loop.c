// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// Inside its loop a reduction variable holds only a thread's partial sum.
void f(int n, const float *x, float *out) {
  float s = 0;
#pragma omp parallel for reduction(+: s)
  for (int i = 0; i < n; i++) {
    s += x[i];
    out[i] = s;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}reduction-read-in-loop.c:8:14: error: the reduction variable 's' is read in its loop other than by its update: each thread only holds a partial result there (read it after the loop)
// CHECK-NEXT: {{^    out\[i\] = s;$}}
// CHECK-NEXT: {{^ {13}\^$}}
