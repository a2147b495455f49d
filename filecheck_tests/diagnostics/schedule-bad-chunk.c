// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *a) {
#pragma omp parallel for schedule(dynamic, 0)
  for (int i = 0; i < n; i++)
    a[i] = 0;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}schedule-bad-chunk.c:3:44: error: the chunk size of schedule must be a positive integer, got '0'
// CHECK-NEXT: {{^\#pragma omp parallel for schedule\(dynamic, 0\)$}}
// CHECK-NEXT: {{^ {43}\^$}}
// CHECK-NOT: Traceback
