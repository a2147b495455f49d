// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *a) {
#pragma omp parallel for proc_bind(anywhere)
  for (int i = 0; i < n; i++)
    a[i] = 0;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}proc-bind-unknown.c:3:36: error: proc_bind needs one of primary, master, close, spread, got 'anywhere'
// CHECK-NEXT: {{^\#pragma omp parallel for proc_bind\(anywhere\)$}}
// CHECK-NEXT: {{^ {35}\^$}}
// CHECK-NOT: Traceback
