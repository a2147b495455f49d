// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
#define SQUARE(x) ((x) * (x))
void f(float *a) { a[0] = SQUARE(a[1], a[2]); }

// CHECK-NOT: Traceback
// CHECK: {{^.*}}function-like-macro.c:3:27: error: macro 'SQUARE' takes 1 argument, got 2
// CHECK-NEXT: {{^void f\(float \*a\) \{ a\[0\] = SQUARE\(a\[1\], a\[2\]\); \}$}}
// CHECK-NEXT: {{^ {26}\^$}}
// CHECK-NOT: Traceback
