// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// PolyBench-ACC's floyd-warshall writes `shared` on a work-sharing loop; OpenMP allows it on
// parallel and teams constructs only, and gcc -fopenmp refuses it too.
void f(int n, double *path) {
#pragma omp parallel
  {
    int k = n / 2;
#pragma omp for shared (k)
    for (int i = 0; i < n; i++)
      path[i] = path[i] + k;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-for-shared.c:8:17: error: 'shared' is not a clause of '#pragma omp for': OpenMP allows it on parallel and teams constructs only
// CHECK-NEXT: {{^\#pragma omp for shared \(k\)$}}
// CHECK-NEXT: {{^ {16}\^$}}
// CHECK-NOT: Traceback
