// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// distribute shares a loop among the teams of a teams region (as gcc requires).
void f(int n, float *a) {
#pragma omp target
  {
#pragma omp distribute parallel for
    for (int i = 0; i < n; i++) a[i] = 0;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-distribute-outside-teams.c:6:9: error: '#pragma omp distribute parallel for' must be directly inside a 'teams' region (it is inside the 'target' at line 4): write '#pragma omp teams distribute parallel for' for a loop of its own
// CHECK-NEXT: {{^}}#pragma omp distribute parallel for{{$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
