// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// An array element written by every thread of a region (suggest single).
void f(int n, float *a) {
#pragma omp parallel
  {
    a[0] = 1;
#pragma omp for
    for (int i = 1; i < n; i++) a[i] = 0;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-region-array-write.c:6:5: error: this writes an array element, and every thread of the 'parallel' region at line 4 runs this statement: put it in a '#pragma omp single' block (or a '#pragma omp for' loop), or declare the variable inside the region
// CHECK-NEXT: {{^}}    a[0] = 1;{{$}}
// CHECK-NEXT: {{^ {4}\^$}}
// CHECK-NOT: Traceback
