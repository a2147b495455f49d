// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *a) {
#pragma omp parallel for collapse(2)
  for (int i = 0; i < n; i++) {
    a[i] = 0;
    for (int j = 0; j < n; j++) a[j] += 1;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}collapse-too-deep.c:3:26: error: 'collapse(2)' needs 2 perfectly nested for loops, but the body of the loop at line 4 is not exactly one for loop
// CHECK-NEXT: {{^\#pragma omp parallel for collapse\(2\)$}}
// CHECK-NEXT: {{^ {25}\^$}}
// CHECK-NOT: Traceback
