// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// One loop, one loop directive.
void f(int n, float *a) {
#pragma omp parallel for
#pragma omp for
  for (int i = 0; i < n; i++) a[i] = 0;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-two-loop-directives.c:5:9: error: '#pragma omp for' cannot apply to the loop of '#pragma omp parallel for': a loop takes one loop directive (use a combined one, e.g. 'parallel for')
// CHECK-NEXT: {{^}}#pragma omp for{{$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
