// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(float *a, float *out) {
  out[0] = a;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}array-as-value.c:3:12: error: array 'a' cannot be used as a value: index it
// CHECK-NEXT: {{^  out\[0\] = a;$}}
// CHECK-NEXT: {{^ {11}\^$}}
// CHECK-NOT: Traceback
