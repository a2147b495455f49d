// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *a) {
#pragma omp parallel for
  a[0] = 1;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}parallel-not-a-loop.c:3:9: error: '#pragma omp parallel for' must be followed by a for loop
// CHECK-NEXT: {{^\#pragma omp parallel for$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
