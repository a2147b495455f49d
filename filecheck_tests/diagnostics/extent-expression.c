// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float A[n > 2 ? n : 2][n]) { }

// CHECK-NOT: Traceback
// CHECK: {{^.*}}extent-expression.c:2:23: error: the extent of array parameter 'A' must be an integer constant or an expression of earlier integer parameters with + - * / % and casts: pass the extent as its own parameter
// CHECK-NEXT: {{^void f\(int n, float A\[n > 2 \? n : 2\]\[n\]\) \{ \}$}}
// CHECK-NEXT: {{^ {22}\^$}}
// CHECK-NOT: Traceback
