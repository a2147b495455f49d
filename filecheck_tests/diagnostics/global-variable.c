// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
int counter;
void f(int *a) { a[0] = counter; }

// CHECK-NOT: Traceback
// CHECK: {{^.*}}global-variable.c:2:5: error: global variable 'counter' is not supported: pass it as a parameter, use #define for a constant, or make it a table (static const float w[3] = {...};)
// CHECK-NEXT: {{^int counter;$}}
// CHECK-NEXT: {{^ {4}\^$}}
// CHECK-NOT: Traceback
