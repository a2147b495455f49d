// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int x) {
  x = (1 + );
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}syntax-expected-expression.c:3:12: error: expected an expression before ')'
// CHECK-NEXT: {{^  x = \(1 \+ \);$}}
// CHECK-NEXT: {{^ {11}\^$}}
// CHECK-NOT: Traceback
