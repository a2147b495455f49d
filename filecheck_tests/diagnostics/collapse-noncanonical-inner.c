// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *a) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < n; i++)
    for (int j = 1; j < n; j = j * 2)
      a[i * n + j] = 0;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}collapse-noncanonical-inner.c:5:5: error: '#pragma omp parallel for' needs a canonical for loop, but the loop at depth 2 of its collapse(2) is not: its step must be i++, i--, i += s, i -= s or i = i + s with s loop-invariant
// CHECK-NEXT: {{^    for \(int j = 1; j < n; j = j \* 2\)$}}
// CHECK-NEXT: {{^ {4}\^$}}
// CHECK-NOT: Traceback
