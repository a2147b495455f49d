// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// PolyBench-ACC's time-stepped kernels put their work-sharing loops inside 'master': OpenMP does
// not allow it (with gcc -fopenmp the master runs only its own share of the iterations).
void f(int tsteps, int n, double *A, double *B) {
#pragma omp parallel
  {
#pragma omp master
    {
      for (int t = 0; t < tsteps; t++) {
#pragma omp for
        for (int i = 1; i < n - 1; i++)
          B[i] = 0.5 * (A[i - 1] + A[i + 1]);
      }
    }
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-for-in-master.c:10:9: error: '#pragma omp for' must be directly inside a 'parallel' region (it is inside the 'master' at line 7): OpenMP does not allow a work-sharing loop there (one thread reaches it, and would run only its share of the iterations); write '#pragma omp parallel for' for a loop of its own, outside the region
// CHECK-NEXT: {{^\#pragma omp for$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
