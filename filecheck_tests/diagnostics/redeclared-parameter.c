// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *n) { }

// CHECK-NOT: Traceback
// CHECK: {{^.*}}redeclared-parameter.c:2:21: error: redefinition of 'n' (first declared at line 2, column 12): use another name
// CHECK-NEXT: {{^void f\(int n, float \*n\) \{ \}$}}
// CHECK-NEXT: {{^ {20}\^$}}
// CHECK-NOT: Traceback
