// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *a, float *sum) {
#pragma omp parallel for reduction(+: sum)
  for (int i = 0; i < n; i++)
    sum[0] += a[i];
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}reduction-array.c:3:39: error: reduction variable 'sum' is an array: only scalar variables can be reduced (accumulate into a scalar and store it after the loop)
// CHECK-NEXT: {{^\#pragma omp parallel for reduction\(\+: sum\)$}}
// CHECK-NEXT: {{^ {38}\^$}}
// CHECK-NOT: Traceback
