// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(float x, float *out) {
  out[0] = x[0];
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}index-scalar.c:3:12: error: subscripted value 'x' is not an array (it is a float)
// CHECK-NEXT: {{^  out\[0\] = x\[0\];$}}
// CHECK-NEXT: {{^ {11}\^$}}
// CHECK-NOT: Traceback
