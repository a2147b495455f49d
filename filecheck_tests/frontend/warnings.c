// RUN: autogpu-opt %s 2>&1 >/dev/null | filecheck %s --strict-whitespace

// Warnings are located like errors, come in source order, and do not stop compilation.

void f(float *a, int n) {
  a[0] == 1;
  sqrtf(a[1]);
  a[2] = 2.5L;
}
// CHECK: {{^.*}}warnings.c:6:8: warning: statement has no effect
// CHECK-NEXT: {{^  a\[0\] == 1;$}}
// CHECK-NEXT: {{^       \^$}}
// CHECK: {{^.*}}warnings.c:7:3: warning: statement has no effect
// CHECK: {{^.*}}warnings.c:8:10: warning: long double literal '2.5L' is computed as double
// CHECK-NOT: warning
