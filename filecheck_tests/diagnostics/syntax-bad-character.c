// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(float *a) {
  a[0] = 1 @ 2;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}syntax-bad-character.c:3:12: error: unexpected character '@'
// CHECK-NEXT: {{^  a\[0\] = 1 @ 2;$}}
// CHECK-NEXT: {{^ {11}\^$}}
// CHECK-NOT: Traceback
