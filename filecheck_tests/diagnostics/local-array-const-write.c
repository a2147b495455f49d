// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
static const float W[2] = {1, 2};
void f(float *out) {
  W[1] = out[0];
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}local-array-const-write.c:4:3: error: cannot write to 'W[...]': 'W' is a const array
// CHECK-NOT: Traceback
