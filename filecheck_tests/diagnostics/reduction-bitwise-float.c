// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *a, float *out) {
  float s = 0;
#pragma omp parallel for reduction(^: s)
  for (int i = 0; i < n; i++)
    s += a[i];
  out[0] = s;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}reduction-bitwise-float.c:4:39: error: reduction '^' needs an integer variable, 's' is float
// CHECK-NEXT: {{^\#pragma omp parallel for reduction\(\^: s\)$}}
// CHECK-NEXT: {{^ {38}\^$}}
// CHECK-NOT: Traceback
