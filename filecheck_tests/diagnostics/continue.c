// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, int *a) {
  for (int i = 0; i < n; i++) {
    if (a[i] < 0) continue;
    a[i] = 0;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}continue.c:4:19: error: 'continue' is not supported: guard the rest of the loop body with 'if'
// CHECK-NEXT: {{^    if \(a\[i\] < 0\) continue;$}}
// CHECK-NEXT: {{^ {18}\^$}}
// CHECK-NOT: Traceback
