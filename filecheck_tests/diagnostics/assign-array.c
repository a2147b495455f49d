// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(float *a, float *b) {
  a = b;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}assign-array.c:3:3: error: cannot assign to array 'a': assign its elements
// CHECK-NEXT: {{^  a = b;$}}
// CHECK-NEXT: {{^ {2}\^$}}
// CHECK-NOT: Traceback
