// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
static inline float even(int n);
static inline float odd(int n) { return n == 0 ? 0.0f : even(n - 1); }
static inline float even(int n) { return n == 0 ? 1.0f : odd(n - 1); }
void f(int n, float *a) { a[0] = even(n); }

// CHECK-NOT: Traceback
// CHECK: {{^.*}}recursion-mutual.c:4:58: error: 'even' calls 'odd' (odd -> even -> odd): recursion is not supported: write it as a loop
// CHECK-NOT: Traceback
