// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// Helpers are inlined at their calls: one only declared here cannot be.
void helper(float *a);
void f(float *a) {
  helper(a);
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}user-function-call.c:5:3: error: 'helper' is declared but not defined in this file: define it here, so that it can be inlined into 'f'
// CHECK-NEXT: {{^  helper\(a\);$}}
// CHECK-NEXT: {{^ {2}\^$}}
// CHECK-NOT: Traceback
