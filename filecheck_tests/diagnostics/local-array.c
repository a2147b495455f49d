// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *out) {
  float tmp[16];
  out[0] = 0;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}local-array.c:3:9: error: local array 'tmp' is not supported: use scalar variables, or pass the array as a parameter
// CHECK-NEXT: {{^  float tmp\[16\];$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
