// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(float *a, int n) {
  a[0] = m;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}undeclared-name.c:3:10: error: use of undeclared identifier 'm'
// CHECK-NEXT: {{^  a\[0\] = m;$}}
// CHECK-NEXT: {{^ {9}\^$}}
// CHECK-NOT: Traceback
