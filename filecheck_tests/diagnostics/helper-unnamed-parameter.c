// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// A helper is inlined before sema checks parameters: its unnamed one must not be dropped.
static inline float one(float) { return 1.0f; }
void f(int n, float *a) { a[0] = one(a[0]); }

// CHECK-NOT: Traceback
// CHECK: {{^.*}}helper-unnamed-parameter.c:3:25: error: parameter needs a name
// CHECK-NEXT: {{^static inline float one\(float\) \{ return 1.0f; \}$}}
// CHECK-NEXT: {{^ {24}\^$}}
// CHECK-NOT: Traceback
