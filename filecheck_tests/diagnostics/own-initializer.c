// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int *a) {
  int x = x + 1;
  a[0] = x;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}own-initializer.c:3:11: error: 'x' is used in its own initializer
// CHECK-NEXT: {{^  int x = x \+ 1;$}}
// CHECK-NEXT: {{^ {10}\^$}}
// CHECK-NOT: Traceback
