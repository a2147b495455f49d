// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
typedef float real;
void f(real *a) { a[0] = 0; }

// CHECK-NOT: Traceback
// CHECK: {{^.*}}typedef.c:2:1: error: typedefs are not supported: write the type out (or use #define)
// CHECK-NEXT: {{^typedef float real;$}}
// CHECK-NEXT: {{^ {0}\^$}}
// CHECK-NOT: Traceback
