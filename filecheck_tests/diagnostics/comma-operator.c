// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int *a, int n) {
  a[0] = (n, 2);
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}comma-operator.c:3:11: error: the comma operator is not supported here
// CHECK-NEXT: {{^  a\[0\] = \(n, 2\);$}}
// CHECK-NEXT: {{^ {10}\^$}}
// CHECK-NOT: Traceback
