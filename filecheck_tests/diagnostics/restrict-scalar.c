// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int restrict n) { }

// CHECK-NOT: Traceback
// CHECK: {{^.*}}restrict-scalar.c:2:12: error: 'restrict' applies only to pointers
// CHECK-NEXT: {{^void f\(int restrict n\) \{ \}$}}
// CHECK-NEXT: {{^ {11}\^$}}
// CHECK-NOT: Traceback
