// RUN: not autogpu-opt %s -p autogpu-vanilla -t cuda 2>&1 | filecheck --strict-whitespace %s
// The launch size is computed on the host, which cannot read the device's arrays: the error
// names the C expression the bound is read from, and where it is.
void f(int n, float *a, const int *len) {
  int m = len[0] * 2;
#pragma omp parallel for
  for (int i = 0; i < m; i++)
    a[i] = 1.0f;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}parallel-bound-from-memory.c:7:3: error: the bounds of this parallel loop depend on 'len[0]' (line 5:11), which is computed from memory: the host cannot compute the launch size
// CHECK-NEXT: {{^  for \(int i = 0; i < m; i\+\+\)$}}
// CHECK-NEXT: {{^ {2}\^$}}
// CHECK-NOT: Traceback
