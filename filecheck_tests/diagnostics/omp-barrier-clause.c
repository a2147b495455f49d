// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// A barrier takes no clauses.
void f(int n, float *a) {
#pragma omp parallel
  {
#pragma omp for
    for (int i = 0; i < n; i++) a[i] = 0;
#pragma omp barrier nowait
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-barrier-clause.c:8:21: error: '#pragma omp barrier' takes no clauses
// CHECK-NEXT: {{^}}#pragma omp barrier nowait{{$}}
// CHECK-NEXT: {{^ {20}\^$}}
// CHECK-NOT: Traceback
