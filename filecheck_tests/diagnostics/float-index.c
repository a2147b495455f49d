// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(float *a, float x) {
  a[x] = 1.0f;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}float-index.c:3:5: error: array index must be an integer, not 'float'
// CHECK-NEXT: {{^  a\[x\] = 1\.0f;$}}
// CHECK-NEXT: {{^ {4}\^$}}
// CHECK-NOT: Traceback
