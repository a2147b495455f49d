// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
static inline float head(const float *row) { return row[0]; }
void f(int n, const float *a, float *out) { out[0] = head(a + n); }

// CHECK-NOT: Traceback
// CHECK: {{^.*}}helper-pointer-argument.c:3:61: error: pass an array itself to 'head' (its parameter 'row'), and index it there: pointer arithmetic and addresses are not supported
// CHECK-NOT: Traceback
