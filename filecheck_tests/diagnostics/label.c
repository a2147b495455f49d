// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n) {
done:
  n = 1;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}label.c:3:1: error: label 'done' is not supported (nor is goto): structure the code with loops and if/else
// CHECK-NEXT: {{^done:$}}
// CHECK-NEXT: {{^ {0}\^$}}
// CHECK-NOT: Traceback
