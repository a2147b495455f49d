// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *a) {
#pragma omp parallel for nowait(1)
  for (int i = 0; i < n; i++)
    a[i] = 0;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}nowait-arguments.c:3:26: error: clause 'nowait' takes no arguments
// CHECK-NEXT: {{^\#pragma omp parallel for nowait\(1\)$}}
// CHECK-NEXT: {{^ {25}\^$}}
// CHECK-NOT: Traceback
