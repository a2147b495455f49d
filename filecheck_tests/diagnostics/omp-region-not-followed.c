// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// A directive at the end of a block has no statement to apply to.
void f(int n, float *a) {
#pragma omp parallel
  {
#pragma omp for
    for (int i = 0; i < n; i++) a[i] = 0;
#pragma omp single
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-region-not-followed.c:8:9: error: '#pragma omp single' must be followed by a statement
// CHECK-NEXT: {{^}}#pragma omp single{{$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
