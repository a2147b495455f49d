// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// num_teams and thread_limit must be positive.
void f(int n, float *a) {
#pragma omp teams distribute parallel for thread_limit(0)
  for (int i = 0; i < n; i++) a[i] = 0;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-num-teams-zero.c:4:56: error: 'thread_limit' must be positive, got 0
// CHECK-NEXT: {{^}}#pragma omp teams distribute parallel for thread_limit(0){{$}}
// CHECK-NEXT: {{^ {55}\^$}}
// CHECK-NOT: Traceback
