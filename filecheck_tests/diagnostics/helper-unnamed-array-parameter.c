// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// A helper with statements, inlined as a block: its unnamed array parameter must not be dropped.
static inline void bump(float *, float x) { x = x + 1.0f; }
void f(int n, float *a) { bump(a, a[0]); }

// CHECK-NOT: Traceback
// CHECK: {{^.*}}helper-unnamed-array-parameter.c:3:25: error: parameter needs a name
// CHECK-NEXT: {{^static inline void bump\(float \*, float x\) \{ x = x \+ 1.0f; \}$}}
// CHECK-NEXT: {{^ {24}\^$}}
// CHECK-NOT: Traceback
