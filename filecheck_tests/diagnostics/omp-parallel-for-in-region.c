// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// A combined parallel loop directly in a region: each thread would run all of it.
void f(int n, float *a) {
#pragma omp parallel
  {
#pragma omp parallel for
    for (int i = 0; i < n; i++) a[i] = 0;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-parallel-for-in-region.c:6:9: error: '#pragma omp parallel for' cannot be used here (it is inside the 'parallel' at line 4): every thread of the region would run the whole loop; write '#pragma omp for' to share its iterations
// CHECK-NEXT: {{^}}#pragma omp parallel for{{$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
