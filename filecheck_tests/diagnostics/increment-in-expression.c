// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int *a, int n) {
  a[n++] = 0;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}increment-in-expression.c:3:6: error: '++' inside an expression is not supported: write it as its own statement
// CHECK-NEXT: {{^  a\[n\+\+\] = 0;$}}
// CHECK-NEXT: {{^ {5}\^$}}
// CHECK-NOT: Traceback
