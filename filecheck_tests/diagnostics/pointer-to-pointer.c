// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(float **rows, int n) { }

// CHECK-NOT: Traceback
// CHECK: {{^.*}}pointer-to-pointer.c:2:14: error: 'rows' is a pointer to pointers: only flat arrays of numbers are supported (index a 1-D array with i * n + j, or use float A[m][n])
// CHECK-NEXT: {{^void f\(float \*\*rows, int n\) \{ \}$}}
// CHECK-NEXT: {{^ {13}\^$}}
// CHECK-NOT: Traceback
