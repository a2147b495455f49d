// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(float *a) {
  /* never closed
  a[0] = 1;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}unterminated-comment.c:3:3: error: unterminated /* comment: close it with {{.*}}
// CHECK-NEXT: {{^\ \ /\*\ never\ closed$}}
// CHECK-NEXT: {{^ {2}\^$}}
// CHECK-NOT: Traceback
