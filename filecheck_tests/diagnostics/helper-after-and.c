// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
static float total(const float *a, int n) {
  float s = 0;
  for (int k = 0; k < n; k++) s += a[k];
  return s;
}
void f(int n, const float *a, float *out) { int ok = n > 0 && total(a, n) > 1; out[0] = ok; }

// CHECK-NOT: Traceback
// CHECK: {{^.*}}helper-after-and.c:7:63: error: 'total' has statements, so its call is computed before the statement that uses it, which C would not do here (after '&&', '||' or '?'): call it in a statement of its own (float v = f(...);)
// CHECK-NOT: Traceback
