// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *a) {
  float t = 0;
#pragma omp parallel for copyin(t)
  for (int i = 0; i < n; i++) {
    a[i] = t * t;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}unsupported-clause.c:4:26: error: clause 'copyin' is not supported on '#pragma omp parallel for': only collapse(n), reduction(op: vars), private, firstprivate, lastprivate, shared, default(shared|none), schedule, num_threads, proc_bind, if, simd and nowait are
// CHECK-NEXT: {{^\#pragma omp parallel for copyin\(t\)$}}
// CHECK-NEXT: {{^ {25}\^$}}
// CHECK-NOT: Traceback
