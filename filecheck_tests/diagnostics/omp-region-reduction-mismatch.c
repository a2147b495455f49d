// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// A region's reduction and its loop's reduction of one variable must use one operator.
void f(int n, const float *x, float *out) {
  float s = 1;
#pragma omp parallel reduction(+: s)
  {
#pragma omp for reduction(*: s)
    for (int i = 0; i < n; i++) s *= x[i];
  }
  out[0] = s;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-region-reduction-mismatch.c:7:9: error: 's' is reduced with '*' here but with '+' by the '#pragma omp parallel' region at line 5 around this loop: use one operator
// CHECK-NEXT: {{^}}#pragma omp for reduction(*: s){{$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
