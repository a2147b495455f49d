// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(union u *a) { }

// CHECK-NOT: Traceback
// CHECK: {{^.*}}union.c:2:8: error: unions are not supported: pass each member as its own parameter
// CHECK-NEXT: {{^void f\(union u \*a\) \{ \}$}}
// CHECK-NEXT: {{^ {7}\^$}}
// CHECK-NOT: Traceback
