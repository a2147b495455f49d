// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n) {
  return n;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}return-value.c:3:10: error: void function 'f' cannot return a value: store results through a pointer parameter
// CHECK-NEXT: {{^  return n;$}}
// CHECK-NEXT: {{^ {9}\^$}}
// CHECK-NOT: Traceback
