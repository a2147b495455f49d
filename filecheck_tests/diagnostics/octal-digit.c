// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int *a) {
  a[0] = 0129;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}octal-digit.c:3:10: error: invalid digit in octal literal '0129'
// CHECK-NEXT: {{^  a\[0\] = 0129;$}}
// CHECK-NEXT: {{^ {9}\^$}}
// CHECK-NOT: Traceback
