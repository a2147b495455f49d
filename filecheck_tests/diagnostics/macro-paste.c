// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
#define CAT(a, b) a ## b
void f(float *a) { a[0] = 1; }
// CHECK-NOT: Traceback
// CHECK: {{^.*}}macro-paste.c:2:21: error: '#' and '##' in the body of macro 'CAT' are not supported: write the tokens out
