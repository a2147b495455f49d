// RUN: not autogpu-opt %s -p agpu-out-of-core 2>&1 | filecheck %s

// An 'if' on an array element stays in-core: in parts, only the parts hold the element.

void element_if(int tsteps, int n, float *x, float *y) {
  for (int t = 0; t < tsteps; t++) {
    if (x[0] > 0.0f) {
#pragma omp parallel for
      for (int i = 0; i < n; i++)
        y[i] = y[i] + x[i];
    }
  }
}
// CHECK: invalid-data-if.c:7:5: error: out-of-core: a parallel loop inside an 'if' whose condition reads data does not run in parts
// CHECK-NOT: Traceback
