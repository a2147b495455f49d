// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *out) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    out[i] = 1;
#pragma omp flush
    out[i] = 2;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}flush.c:6:9: error: '#pragma omp flush' is not supported: use '#pragma omp atomic' or '#pragma omp critical' to share values between iterations
// CHECK-NEXT: {{^\#pragma\ omp\ flush$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
