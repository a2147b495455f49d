// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *a) {
#pragma omp parallel for private(t)
  for (int i = 0; i < n; i++)
    a[i] = 0;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}private-undeclared.c:3:34: error: private variable 't' is not declared
// CHECK-NEXT: {{^\#pragma omp parallel for private\(t\)$}}
// CHECK-NEXT: {{^ {33}\^$}}
// CHECK-NOT: Traceback
