// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// A barrier inside a single block would wait for threads that never reach it.
void f(int n, float *a) {
#pragma omp parallel
  {
#pragma omp single
    {
      a[0] = 1;
#pragma omp barrier
    }
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-barrier-in-single.c:9:9: error: '#pragma omp barrier' must be directly inside a 'parallel' region (it is inside the 'single' at line 6)
// CHECK-NEXT: {{^}}#pragma omp barrier{{$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
