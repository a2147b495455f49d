// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int *a) {
  int x = {1};
  a[0] = x;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}brace-initializer.c:3:11: error: braces around the initializer of scalar 'x' are not supported: write it without them
// CHECK-NEXT: {{^  int x = \{1\};$}}
// CHECK-NEXT: {{^ {10}\^$}}
// CHECK-NOT: Traceback
