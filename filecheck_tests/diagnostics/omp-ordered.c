// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// ordered: refused, saying why.
void f(int n, float *a) {
#pragma omp parallel for ordered
  for (int i = 1; i < n; i++) {
#pragma omp ordered
    a[i] = a[i - 1] + 1;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-ordered.c:6:9: error: 'ordered' is not supported: it runs part of each iteration in the serial order, which threads of a GPU kernel cannot; make the loop serial
// CHECK-NEXT: {{^}}#pragma omp ordered{{$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
