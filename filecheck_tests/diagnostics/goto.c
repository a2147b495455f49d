// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n) {
  goto done;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}goto.c:3:3: error: 'goto' is not supported: structure the code with loops and if/else
// CHECK-NEXT: {{^  goto done;$}}
// CHECK-NEXT: {{^ {2}\^$}}
// CHECK-NOT: Traceback
