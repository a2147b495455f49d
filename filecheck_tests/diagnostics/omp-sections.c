// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// sections: refused, saying why.
void f(int n, float *a) {
#pragma omp parallel
  {
#pragma omp sections
    {
      a[0] = 1;
    }
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-sections.c:6:9: error: 'sections' is not supported: a GPU kernel runs one code path per loop; write the sections one after another in a 'single' block, or as separate parallel loops
// CHECK-NEXT: {{^}}#pragma omp sections{{$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
