// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// A parallel region inside another: nested teams of threads.
void f(int n, float *a) {
#pragma omp parallel
  {
#pragma omp parallel
    {
#pragma omp for
      for (int i = 0; i < n; i++) a[i] = 0;
    }
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-nested-region.c:6:9: error: '#pragma omp parallel' cannot be used here (it is inside the 'parallel' at line 4): nested regions are not supported
// CHECK-NEXT: {{^}}#pragma omp parallel{{$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
