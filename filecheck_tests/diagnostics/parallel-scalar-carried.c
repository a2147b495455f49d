// RUN: not autogpu-opt %s -p autogpu-vanilla 2>&1 | filecheck --strict-whitespace %s
// A scalar only this loop uses, assigned by one iteration and read by the others: the serial C
// gives every y[i] the value 1; a private copy per thread would leave the others unset.
void f(int n, float *y) {
  float t;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    if (i == 0) t = 1.0f;
    y[i] = t;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}parallel-scalar-carried.c:9:12: error: 't' is assigned by the iterations of a parallel loop and it may be read before the iteration assigns it; declare it inside the loop, list it private, or make it a reduction
// CHECK-NEXT: {{^    y\[i\] = t;$}}
// CHECK-NEXT: {{^ {11}\^$}}
// CHECK-NOT: Traceback
