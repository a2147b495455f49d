// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void g(int n);
void g(int n) { }
void g(int m) { }

// CHECK-NOT: Traceback
// CHECK: {{^.*}}function-redefinition.c:4:6: error: redefinition of function 'g'
// CHECK-NEXT: {{^void g\(int m\) \{ \}$}}
// CHECK-NEXT: {{^ {5}\^$}}
// CHECK-NOT: Traceback
