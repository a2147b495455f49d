// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// A barrier synchronises the threads of a parallel region: outside one there are none.
void f(int n, float *a) {
  a[0] = 1;
#pragma omp barrier
  a[1] = 2;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-barrier-outside-region.c:5:9: error: '#pragma omp barrier' must be directly inside a 'parallel' region
// CHECK-NEXT: {{^}}#pragma omp barrier{{$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
