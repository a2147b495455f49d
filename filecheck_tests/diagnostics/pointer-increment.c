// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(float *p, int n) {
  for (int i = 0; i < n; i++) {
    p[0] = 0;
    p++;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}pointer-increment.c:5:5: error: pointer arithmetic ('++' on 'p') is not supported: keep the pointer fixed and index it (p[i])
// CHECK-NEXT: {{^    p\+\+;$}}
// CHECK-NEXT: {{^ {4}\^$}}
// CHECK-NOT: Traceback
