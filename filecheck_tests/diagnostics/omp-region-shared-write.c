// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// Every thread of a region runs its statements outside work-sharing constructs: a write of a
// shared variable there is a race in OpenMP, and running it once would not be its meaning.
void f(int n, float *a) {
  int k = 0;
#pragma omp parallel
  {
    int mine = 1;
    mine += 1;
    k = mine;
#pragma omp for
    for (int i = 0; i < n; i++) a[i] = k;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-region-shared-write.c:10:5: error: this writes variable 'k', declared outside the region, and every thread of the 'parallel' region at line 6 runs this statement: put it in a '#pragma omp single' block (or a '#pragma omp for' loop), or declare the variable inside the region
// CHECK-NEXT: {{^}}    k = mine;{{$}}
// CHECK-NEXT: {{^ {4}\^$}}
// CHECK-NOT: Traceback
