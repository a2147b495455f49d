// RUN: not autogpu-opt %s -p autogpu-vanilla 2>&1 | filecheck --strict-whitespace %s
// A scalar assigned in an inner serial loop that may run zero times (m <= 0) and read later in
// the iteration: it may hold another iteration's value, so without private(t) it is refused.
void f(int n, int m, double *a, double *b) {
  double t;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < m; j++) t = a[i] * j;
    a[i] = t;
  }
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    t = b[i];
    b[i] = t * 2;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}private-serial-loop-unproven.c:9:12: error: 't' is assigned by the iterations of a parallel loop and it may be read before the iteration assigns it; declare it inside the loop, list it private, or make it a reduction
// CHECK-NEXT: {{^    a\[i\] = t;$}}
// CHECK-NEXT: {{^ {11}\^$}}
// CHECK-NOT: Traceback
