// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int *a, int n) {
  a[0] = n(2);
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}called-variable.c:3:10: error: called object 'n' is not a function
// CHECK-NEXT: {{^  a\[0\] = n\(2\);$}}
// CHECK-NEXT: {{^ {9}\^$}}
// CHECK-NOT: Traceback
