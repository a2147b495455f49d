// RUN: not autogpu-opt %s -p autogpu-vanilla -t cuda 2>&1 | filecheck --strict-whitespace %s
// A bound read from memory and widened to long (an arith.extsi of the load) is named by the
// C expression read, not by the conversion.
void f(int n, float *a, const int *w) {
  long m = w[0];
#pragma omp parallel for
  for (long i = 0; i < m + 1; i++)
    a[i] = 1.0f;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}parallel-bound-from-memory-widened.c:7:3: error: the bounds of this parallel loop depend on 'w[0]' (line 5:12), which is computed from memory: the host cannot compute the launch size
// CHECK-NEXT: {{^  for \(long i = 0; i < m \+ 1; i\+\+\)$}}
// CHECK-NEXT: {{^ {2}\^$}}
// CHECK-NOT: Traceback
