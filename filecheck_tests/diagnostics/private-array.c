// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *a) {
#pragma omp parallel for firstprivate(a)
  for (int i = 0; i < n; i++)
    a[i] = 0;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}private-array.c:3:39: error: firstprivate variable 'a' is an array: a copy per thread would be a local array, which kernels do not support; list it shared (arrays are shared anyway) and give each iteration its own elements
// CHECK-NEXT: {{^\#pragma omp parallel for firstprivate\(a\)$}}
// CHECK-NEXT: {{^ {38}\^$}}
// CHECK-NOT: Traceback
