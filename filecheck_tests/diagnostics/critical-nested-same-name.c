// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, const float *x, float *out) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp critical (a)
    {
#pragma omp critical (a)
      out[0] = out[0] + x[i];
    }
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}critical-nested-same-name.c:7:9: error: '#pragma omp critical (a)' inside a critical section of the same name would wait for itself forever
// CHECK-NEXT: {{^\#pragma\ omp\ critical\ \(a\)$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
