// RUN: not autogpu-opt %s -p autogpu-optimize -t cuda 2>&1 | filecheck --strict-whitespace %s
// Kernels are launched from the top level of the function only.
void f(int n, float *x) {
  for (int t = 0; t < 4; t++) {
#pragma omp parallel for
    for (int i = 0; i < n; i++)
      x[i] += 1;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}parallel-in-serial-loop.c:6:5: error: a parallel loop inside serial control flow (scf.for) cannot be launched from the host: only parallel loops at the top level of function 'f' become kernels
// CHECK-NEXT: {{^    for \(int i = 0; i < n; i\+\+\)$}}
// CHECK-NEXT: {{^ {4}\^$}}
