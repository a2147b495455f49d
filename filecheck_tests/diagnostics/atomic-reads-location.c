// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *h) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp atomic
    h[i % 4] += 2 * h[i % 4];
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}atomic-reads-location.c:6:21: error: the expression of an atomic update must not read 'h{{\[}}...]', the location it updates
// CHECK-NEXT: {{^\ \ \ \ h\[i\ %\ 4\]\ \+=\ 2\ \*\ h\[i\ %\ 4\];$}}
// CHECK-NEXT: {{^ {20}\^$}}
// CHECK-NOT: Traceback
