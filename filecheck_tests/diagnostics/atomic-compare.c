// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, int *h, const int *x) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp atomic compare
    h[0] = x[i] > h[0] ? x[i] : h[0];
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}atomic-compare.c:5:20: error: clause 'compare' is not supported on '#pragma omp atomic': use update, read, write or capture (with an optional memory order)
// CHECK-NEXT: {{^\#pragma\ omp\ atomic\ compare$}}
// CHECK-NEXT: {{^ {19}\^$}}
// CHECK-NOT: Traceback
