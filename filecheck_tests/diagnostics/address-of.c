// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(float *p, int *n) {
  int x = 0;
  n[0] = &x;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}address-of.c:4:10: error: taking an address ('&') is not supported: pass arrays as parameters and index them
// CHECK-NEXT: {{^  n\[0\] = \&x;$}}
// CHECK-NEXT: {{^ {9}\^$}}
// CHECK-NOT: Traceback
