// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// A work-sharing loop needs the team of a parallel region to share its iterations.
void f(int n, float *a) {
#pragma omp for
  for (int i = 0; i < n; i++) a[i] = 0;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-for-outside-region.c:4:9: error: '#pragma omp for' must be directly inside a 'parallel' region: write '#pragma omp parallel for' for a loop of its own
// CHECK-NEXT: {{^}}#pragma omp for{{$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
