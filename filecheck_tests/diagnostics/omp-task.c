// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// Tasks: refused, saying why.
void f(int n, float *a) {
#pragma omp parallel
  {
#pragma omp single
    {
#pragma omp task
      a[0] = 1;
    }
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-task.c:8:9: error: tasks are not supported: a GPU kernel cannot spawn work; write it as a parallel loop
// CHECK-NEXT: {{^}}#pragma omp task{{$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
