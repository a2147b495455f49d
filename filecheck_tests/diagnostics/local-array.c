// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *out) {
  float tmp[n];
  out[0] = 0;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}local-array.c:3:13: error: the extent of local array 'tmp' must be an integer constant (variable length arrays are not supported: use a #define constant)
// CHECK-NEXT: {{^  float tmp\[n\];$}}
// CHECK-NEXT: {{^ {12}\^$}}
// CHECK-NOT: Traceback
