// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *a, float *sum) {
#pragma omp parallel for reduction(+: sum)
  for (int i = 0; i < n; i++)
    sum[0] += a[i];
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}reduction-array.c:3:39: error: the extent of 'sum' is not declared: name the elements to reduce with a section, 'reduction(op: sum[0:n])'
// CHECK-NEXT: {{^\#pragma omp parallel for reduction\(\+: sum\)$}}
// CHECK-NEXT: {{^ {38}\^$}}
// CHECK-NOT: Traceback
