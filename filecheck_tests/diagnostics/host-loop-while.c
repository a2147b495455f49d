// RUN: not autogpu-opt %s -p autogpu-optimize -t cuda 2>&1 | filecheck --strict-whitespace %s
// A convergence loop around kernels: its condition reads data that the kernels compute, which
// the host does not copy back (refused, at the loop).
void f(int n, float *x, float *err) {
  while (err[0] > 0.5f) {
#pragma omp parallel for
    for (int i = 0; i < n; i++)
      x[i] *= 0.5f;
    err[0] = x[0];
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}host-loop-while.c:5:3: error: a parallel loop inside a 'while' (or non-canonical 'for') loop: the host runs loops around kernels, and it can only run counted 'for' loops whose bounds it computes from scalar parameters (a condition on data the kernels compute, such as a convergence test, is not supported yet)
// CHECK-NEXT: {{^  while \(err\[0\] > 0.5f\) \{$}}
// CHECK-NEXT: {{^ {2}\^$}}
