// RUN: not autogpu-opt %s -p autogpu-optimize -t cuda 2>&1 | filecheck --strict-whitespace %s
// An 'if' around a kernel whose condition reads an array: the host cannot decide it.
void f(int n, float *x) {
  if (x[0] > 0) {
#pragma omp parallel for
    for (int i = 0; i < n; i++)
      x[i] += 1;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}host-if-from-memory.c:4:3: error: the condition of this 'if' around kernels depends on 'x[0]' (line 4:7), which is computed from memory: the host, which runs it, knows only the scalar parameters and the counters of the loops it runs (a condition on data that kernels compute is not supported yet)
// CHECK-NEXT: {{^  if \(x\[0\] > 0\) \{$}}
// CHECK-NEXT: {{^ {2}\^$}}
