// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *a) {
#pragma omp parallel for
  for (int i = 0; i < n; i *= 2)
    a[i] = 0;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}parallel-noncanonical.c:4:3: error: '#pragma omp parallel for' needs a canonical for loop, but this loop is not: its step must be i++, i--, i += s, i -= s or i = i + s with s loop-invariant
// CHECK-NEXT: {{^  for \(int i = 0; i < n; i \*= 2\)$}}
// CHECK-NEXT: {{^ {2}\^$}}
// CHECK-NOT: Traceback
