// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
static float first_negative(const float *a, int n) {
  for (int k = 0; k < n; k++)
    if (a[k] < 0) return a[k];
  return 0.0f;
}
void f(int n, const float *a, float *out) { float v = first_negative(a, n); out[0] = v; }

// CHECK-NOT: Traceback
// CHECK: {{^.*}}helper-early-return.c:4:19: error: 'first_negative' returns before its end: a helper with statements may return only as its last statement (write if/else, or a helper that is a single return expression)
// CHECK-NOT: Traceback
