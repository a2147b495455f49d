// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// In a teams region, a loop not distributed would run in full in every team.
void f(int n, float *a) {
#pragma omp target teams
  {
#pragma omp parallel for
    for (int i = 0; i < n; i++) a[i] = 0;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-teams-parallel-for.c:6:9: error: '#pragma omp parallel for' cannot be used here (it is inside the 'target teams' at line 4): every team would run it; in a 'teams' region, write '#pragma omp distribute parallel for'
// CHECK-NEXT: {{^}}#pragma omp parallel for{{$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
