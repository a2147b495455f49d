// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *a) {
  float t;
#pragma omp parallel for private(t)
  for (int i = 0; i < n; i++) {
    t = a[i];
    a[i] = t * t;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}unsupported-clause.c:4:26: error: clause 'private' is not supported on '#pragma omp parallel for': only collapse(n) and reduction(op: vars) are (declare private variables inside the loop)
// CHECK-NEXT: {{^\#pragma omp parallel for private\(t\)$}}
// CHECK-NEXT: {{^ {25}\^$}}
// CHECK-NOT: Traceback
