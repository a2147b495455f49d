// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *a) {
#pragma omp parallel for reduction(+: total)
  for (int i = 0; i < n; i++)
    a[i] = 0;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}reduction-undeclared.c:3:39: error: reduction variable 'total' is not declared
// CHECK-NEXT: {{^\#pragma omp parallel for reduction\(\+: total\)$}}
// CHECK-NEXT: {{^ {38}\^$}}
// CHECK-NOT: Traceback
