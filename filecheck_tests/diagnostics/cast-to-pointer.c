// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(float *a, int *b) {
  a[0] = ((float *)b)[0];
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}cast-to-pointer.c:3:12: error: only casts to arithmetic types (int, float, ...) are supported
// CHECK-NEXT: {{^  a\[0\] = \(\(float \*\)b\)\[0\];$}}
// CHECK-NEXT: {{^ {11}\^$}}
// CHECK-NOT: Traceback
