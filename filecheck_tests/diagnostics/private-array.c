// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// private/firstprivate copy local arrays only: a parameter (or a pointer) has no known size.
void f(int n, float *a) {
#pragma omp parallel for firstprivate(a)
  for (int i = 0; i < n; i++)
    a[i] = 0;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}private-array.c:4:39: error: firstprivate variable 'a' is an array parameter or pointer: its copy would have no known size; list it shared (arrays are shared anyway) and give each iteration its own elements, or copy the elements into a local array declared inside the loop
// CHECK-NEXT: {{^\#pragma omp parallel for firstprivate\(a\)$}}
// CHECK-NEXT: {{^ {38}\^$}}
// CHECK-NOT: Traceback
