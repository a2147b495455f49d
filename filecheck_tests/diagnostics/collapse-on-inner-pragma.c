// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *a) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < n; i++)
#pragma omp parallel for
    for (int j = 0; j < n; j++)
      a[i * n + j] = 0;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}collapse-on-inner-pragma.c:5:9: error: this loop is already parallel: the outer loop's collapse (2) includes it
// CHECK-NEXT: {{^\#pragma omp parallel for$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
