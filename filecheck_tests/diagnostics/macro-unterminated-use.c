// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
#define SQ(x) ((x) * (x))
void f(float *a) { a[0] = SQ(a[1]
  ); }
// CHECK-NOT: Traceback
// CHECK: {{^.*}}macro-unterminated-use.c:3:27: error: unterminated use of macro 'SQ': its arguments must end with ')' on the line where it is used
