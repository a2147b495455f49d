// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, int m, float *a, float *b) {
  int j;
#pragma omp parallel for default(none) shared(n, m, a, b)
  for (int i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      a[i * m + j] = b[j];
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}default-none-unlisted.c:6:10: error: 'j' is not listed in a data-sharing clause of this loop, which has default(none): add shared(j) (or private, firstprivate, ...)
// CHECK-NEXT: {{^    for \(j = 0; j < m; j\+\+\)$}}
// CHECK-NEXT: {{^ {9}\^$}}
// CHECK-NOT: Traceback
