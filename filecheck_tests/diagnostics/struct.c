// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
struct point { float x, y; };
void f(float *a) { a[0] = 0; }

// CHECK-NOT: Traceback
// CHECK: {{^.*}}struct.c:2:1: error: structs are not supported: pass each field as its own array or scalar parameter
// CHECK-NEXT: {{^struct point \{ float x, y; \};$}}
// CHECK-NEXT: {{^ {0}\^$}}
// CHECK-NOT: Traceback
