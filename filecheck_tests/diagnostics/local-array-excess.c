// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(float *out) {
  const float w[2][2] = {{1, 2}, {3, 4}, {5}};
  out[0] = w[0][0];
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}local-array-excess.c:3:42: error: excess elements in the initializer of 'w'
// CHECK-NOT: Traceback
