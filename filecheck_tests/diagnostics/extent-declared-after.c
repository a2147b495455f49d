// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(float A[n][n], int n) { }

// CHECK-NOT: Traceback
// CHECK: {{^.*}}extent-declared-after.c:2:16: error: use of undeclared identifier 'n' in the extent of 'A': C99 needs the extent parameters declared before the array, as in void f(int n, float A[n])
// CHECK-NEXT: {{^void f\(float A\[n\]\[n\], int n\) \{ \}$}}
// CHECK-NEXT: {{^ {15}\^$}}
// CHECK-NOT: Traceback
