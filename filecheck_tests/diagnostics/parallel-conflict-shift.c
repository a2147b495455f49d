// RUN: not autogpu-opt %s 2>&1 | filecheck %s
// RUN: not autogpu-opt %s -p autogpu-vanilla -t cuda 2>&1 | filecheck %s

// Each iteration reads the element the previous one writes: a loop-carried dependence, so the
// loop is not parallel and no kernel is made.
void shift(float *a, int n) {
#pragma omp parallel for
  for (int i = 1; i < n; i++)
    a[i] = a[i - 1] + 1;
}

// CHECK-NOT: Traceback
// CHECK: {{^(.*:[0-9]+:[0-9]+: )?}}error: iterations of the parallel loop over 'i' conflict: 'a[i]' written here by the iteration with i = 1 is read as 'a[i - 1]' (line 9:12) by the iteration with i = 2; the loop is not parallel
// CHECK-NOT: Traceback
// CHECK-NOT: __global__
