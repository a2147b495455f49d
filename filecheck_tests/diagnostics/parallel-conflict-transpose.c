// RUN: not autogpu-opt %s 2>&1 | filecheck %s

// An in-place transpose over the whole square: iteration (0, 1) swaps the elements that
// iteration (1, 0) swaps back.
void transpose(float *a, int n) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      float t = a[i * n + j];
      a[i * n + j] = a[j * n + i];
      a[j * n + i] = t;
    }
}

// CHECK-NOT: Traceback
// CHECK: {{^(.*:[0-9]+:[0-9]+: )?}}error: iterations of the parallel loop over 'i' conflict: 'a[i * n + j]' written here by the iteration with i = 0, j = 1 is read as 'a[j * n + i]' (line 10:22) by the iteration with i = 1, j = 0; the loop is not parallel
// CHECK-NOT: Traceback
