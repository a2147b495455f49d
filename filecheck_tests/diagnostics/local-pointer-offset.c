// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *A) {
  float *restrict row = A + n;
  row[0] = 1;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}local-pointer-offset.c:3:27: error: local pointer 'row' is not supported here: a local pointer may only name a whole array (float *restrict row = A;): index the array directly (A[i * n + j])
// CHECK-NOT: Traceback
