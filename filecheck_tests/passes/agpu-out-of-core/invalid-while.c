// RUN: not autogpu-opt %s -p agpu-out-of-core 2>&1 | filecheck %s

// Data-dependent host control stays in-core: the condition is computed from data that, in
// parts, only the parts hold.

void converge(int n, float tol, float *a, float *b) {
  float diff = 1e9f;
  while (diff > tol) {
    diff = 0.0f;
#pragma omp parallel for reduction(max: diff)
    for (int i = 1; i < n - 1; i++) {
      b[i] = 0.5f * (a[i - 1] + a[i + 1]);
      diff = diff > b[i] - a[i] ? diff : b[i] - a[i];
    }
#pragma omp parallel for
    for (int i = 1; i < n - 1; i++)
      a[i] = b[i];
  }
}
// CHECK: invalid-while.c:8:3: error: out-of-core: a parallel loop inside a 'while' loop (or a 'for' whose condition reads data) does not run in parts
// CHECK-NOT: Traceback
