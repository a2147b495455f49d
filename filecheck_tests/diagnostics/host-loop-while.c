// RUN: not autogpu-opt %s -p agpu-out-of-core,autogpu-optimize -t cuda 2>&1 | filecheck --strict-whitespace %s
// A convergence loop around kernels runs in-core (the host reads its condition back each
// trip); in parts it is refused, at the loop: the parts hold the data the condition reads.
void f(int n, float *x, float *err) {
  while (err[0] > 0.5f) {
#pragma omp parallel for
    for (int i = 0; i < n; i++)
      x[i] *= 0.5f;
    err[0] = x[0];
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}host-loop-while.c:5:3: error: out-of-core: a parallel loop inside a 'while' loop (or a 'for' whose condition reads data) does not run in parts: its condition is computed from data the parts hold (run it in-core)
// CHECK-NEXT: {{^  while \(err\[0\] > 0.5f\) \{$}}
// CHECK-NEXT: {{^ {2}\^$}}
