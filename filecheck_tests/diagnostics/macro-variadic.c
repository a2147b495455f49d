// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
#define LOG(...) 0
void f(float *a) { a[0] = 1; }
// CHECK-NOT: Traceback
// CHECK: {{^.*}}macro-variadic.c:2:9: error: variadic macro 'LOG' is not supported: give it named parameters
