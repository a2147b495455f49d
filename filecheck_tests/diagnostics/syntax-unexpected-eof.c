// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n) {
  n = 1;

// CHECK-NOT: Traceback
// CHECK: {{^.*}}syntax-unexpected-eof.c:3:9: error: expected '}' at end of input
// CHECK-NEXT: {{^  n = 1;$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
