// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float A[n + 1][n]) { }

// CHECK-NOT: Traceback
// CHECK: {{^.*}}extent-expression.c:2:25: error: the extent of array parameter 'A' must be a parameter name or an integer constant: pass the extent as its own parameter
// CHECK-NEXT: {{^void f\(int n, float A\[n \+ 1\]\[n\]\) \{ \}$}}
// CHECK-NEXT: {{^ {24}\^$}}
// CHECK-NOT: Traceback
