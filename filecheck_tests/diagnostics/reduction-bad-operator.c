// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *a, float *out) {
  float s = 0;
#pragma omp parallel for reduction(/: s)
  for (int i = 0; i < n; i++)
    s += a[i];
  out[0] = s;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}reduction-bad-operator.c:4:36: error: reduction needs 'op: variables' with op one of + - * min max & | ^ && ||, got '/: s'
// CHECK-NEXT: {{^\#pragma omp parallel for reduction\(/: s\)$}}
// CHECK-NEXT: {{^ {35}\^$}}
// CHECK-NOT: Traceback
