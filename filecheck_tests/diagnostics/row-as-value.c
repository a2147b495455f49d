// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float A[n][n], float *out) {
  out[0] = A[1];
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}row-as-value.c:3:12: error: 'A[...]' is a row of a 2-D array: index it further
// CHECK-NEXT: {{^  out\[0\] = A\[1\];$}}
// CHECK-NEXT: {{^ {11}\^$}}
// CHECK-NOT: Traceback
