// RUN: not autogpu-opt %s -p agpu-out-of-core,autogpu-optimize -t cuda 2>&1 | filecheck --strict-whitespace %s
// An 'if' around a kernel whose condition reads an array runs in-core (a kernel computes the
// condition, the host reads it back); in parts it is refused: only the parts hold x[0].
void f(int n, float *x) {
  if (x[0] > 0) {
#pragma omp parallel for
    for (int i = 0; i < n; i++)
      x[i] += 1;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}host-if-from-memory.c:5:3: error: out-of-core: a parallel loop inside an 'if' whose condition reads data does not run in parts: the condition is computed from data the parts hold (run it in-core)
// CHECK-NEXT: {{^  if \(x\[0\] > 0\) \{$}}
// CHECK-NEXT: {{^ {2}\^$}}
