// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// private and firstprivate copy a local array; lastprivate's copy-out of one is refused.
void g(int n, float *a) {
  float w[2];
#pragma omp parallel for lastprivate(w)
  for (int i = 0; i < n; i++) {
    w[0] = i;
    a[i] = w[0];
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}lastprivate-array.c:5:38: error: lastprivate array 'w' is not supported: declare the array inside the loop and, in the last iteration (an if on the loop variable), copy its elements to the shared array
// CHECK-NEXT: {{^\#pragma omp parallel for lastprivate\(w\)$}}
// CHECK-NEXT: {{^ {37}\^$}}
// CHECK-NOT: Traceback
