// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, const float *a, float *out) {
  float s = 0;
#pragma omp parallel for reduction(+: s) private(s)
  for (int i = 0; i < n; i++)
    s += a[i];
  out[0] = s;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}private-and-reduction.c:4:50: error: 's' cannot be both reduction and private
// CHECK-NEXT: {{^\#pragma omp parallel for reduction\(\+: s\) private\(s\)$}}
// CHECK-NEXT: {{^ {49}\^$}}
// CHECK-NOT: Traceback
