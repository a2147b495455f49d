// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// A missing ';' is reported right after the token it should follow.
void f(int n) {
  int x = 1
  x = 2;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}syntax-missing-semicolon.c:4:12: error: expected ';' before 'x'
// CHECK-NEXT: {{^  int x = 1$}}
// CHECK-NEXT: {{^ {11}\^$}}
// CHECK-NOT: Traceback
