// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// A variable declared in a region is private to each thread: a single block sets only the copy
// of the thread that runs it, so the loop after it would read the others' unset copies.
void f(int n, float *a, float c) {
#pragma omp parallel
  {
    float scale;
#pragma omp single
    scale = c * 2.0f;
#pragma omp for
    for (int i = 0; i < n; i++) a[i] *= scale;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-single-private-write.c:9:5: error: 'scale' is declared in the 'parallel' region at line 5, so each thread has its own copy, and this 'single' block sets only its thread's: list it in copyprivate(scale) or declare 'scale' before the region
// CHECK-NEXT: {{^}}    scale = c * 2.0f;{{$}}
// CHECK-NEXT: {{^ {4}\^$}}
// CHECK-NOT: Traceback
