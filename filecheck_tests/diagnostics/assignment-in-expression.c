// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int *a, int n) {
  a[0] = (n = 2) + 1;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}assignment-in-expression.c:3:13: error: assignment inside an expression is not supported: write it as its own statement
// CHECK-NEXT: {{^  a\[0\] = \(n = 2\) \+ 1;$}}
// CHECK-NEXT: {{^ {12}\^$}}
// CHECK-NOT: Traceback
