// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *a) {
#pragma omp parallel for default(private)
  for (int i = 0; i < n; i++)
    a[i] = 0;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}default-unknown.c:3:34: error: default needs 'shared' or 'none', got 'private' (default(private) and default(firstprivate) are Fortran's)
// CHECK-NEXT: {{^\#pragma omp parallel for default\(private\)$}}
// CHECK-NEXT: {{^ {33}\^$}}
// CHECK-NOT: Traceback
