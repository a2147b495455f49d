// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(float *a) { static int calls = 0; a[0] = calls; }

// CHECK-NOT: Traceback
// CHECK: {{^.*}}static-local.c:2:20: error: 'static' on a local variable is not supported: a static local keeps its value between calls, which threads cannot share; declare it without 'static'
// CHECK-NOT: Traceback
