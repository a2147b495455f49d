// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// A region's reduction variable holds a partial value inside the region.
void f(int n, const float *x, float *out) {
  float s = 0;
#pragma omp parallel reduction(+: s)
  {
#pragma omp for
    for (int i = 0; i < n; i++) s += x[i];
#pragma omp single
    out[0] = s;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-region-reduction-use.c:10:14: error: 's' is a reduction variable of '#pragma omp parallel' at line 5: inside the region only its work-sharing loops may update it (its value is partial until the region ends); use it after the region
// CHECK-NEXT: {{^}}    out[0] = s;{{$}}
// CHECK-NEXT: {{^ {13}\^$}}
// CHECK-NOT: Traceback
