// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(unsigned long *a) {
  a[0] = 18446744073709551616u;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}integer-literal-too-large.c:3:10: error: integer literal '18446744073709551616u' is too large for any integer type
// CHECK-NEXT: {{^  a\[0\] = 18446744073709551616u;$}}
// CHECK-NEXT: {{^ {9}\^$}}
// CHECK-NOT: Traceback
