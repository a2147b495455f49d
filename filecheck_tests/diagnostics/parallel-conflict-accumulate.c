// RUN: not autogpu-opt %s 2>&1 | filecheck %s

// A sum into one array element without a reduction clause: every iteration reads and writes
// out[0] (dot.c shows the reduction).
void sum(const float *x, float *out, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    out[0] += x[i];
}

// CHECK-NOT: Traceback
// CHECK: {{^(.*:[0-9]+:[0-9]+: )?}}error: every iteration of the parallel loop over 'i' reads and writes the same element 'out[0]'; the loop is not parallel (to combine values from all iterations, accumulate them in a local scalar listed in 'reduction(+: ...)' and store it after the loop)
// CHECK-NOT: Traceback
