// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void helper(float *a) { a[0] = 0; }
void f(float *a) {
  helper(a);
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}user-function-call.c:4:3: error: calls to user functions are not supported: inline 'helper' into 'f'
// CHECK-NEXT: {{^  helper\(a\);$}}
// CHECK-NEXT: {{^ {2}\^$}}
// CHECK-NOT: Traceback
