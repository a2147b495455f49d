// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, const float *x, float *out) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp critical
    {
      out[0] = out[0] + x[i];
      if (x[i] > 0)
        return;
    }
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}critical-return.c:9:9: error: 'return' cannot leave the critical section: a critical section must run to its end
// CHECK-NEXT: {{^\ \ \ \ \ \ \ \ return;$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
