// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// A target region inside another.
void f(int n, float *a) {
#pragma omp target
  {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++) a[i] = 0;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-nested-target.c:6:9: error: '#pragma omp target teams distribute parallel for' cannot be used here (it is inside the 'target' at line 4): nested regions are not supported
// CHECK-NEXT: {{^}}#pragma omp target teams distribute parallel for{{$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
