// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// An array reduction's per-block copies merge into the array with atomics, which CUDA lacks
// for 8- and 16-bit elements.
void f(int n, const int *b, unsigned char h[16]) {
#pragma omp parallel for reduction(+: h)
  for (int i = 0; i < n; i++)
    h[b[i] % 16] += 1;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}reduction-array-narrow.c:5:39: error: a reduction over an array of 'unsigned char' is not supported: CUDA has no atomics on 8- or 16-bit elements, which its copies merge with; use an 'int' array
// CHECK-NOT: Traceback
