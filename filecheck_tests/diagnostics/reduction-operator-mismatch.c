// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// The update of a reduction variable must apply its clause's operator: each thread's partial
// product would be combined with '*' although the loop adds.
void f(int n, const float *x, float *out) {
  float p = 1;
#pragma omp parallel for reduction(*: p)
  for (int i = 0; i < n; i++)
    p += x[i];
  out[0] = p;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}reduction-operator-mismatch.c:8:7: error: this update of 'p' does not match its clause 'reduction(*: p)', so the threads' partial results would be combined wrongly: update it as p *= EXPR or p = p * EXPR (EXPR not reading 'p')
// CHECK-NEXT: {{^    p \+= x\[i\];$}}
// CHECK-NEXT: {{^      \^$}}
