// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, int *a) {
  for (int i = 0; i < n; i++)
    if (a[i] < 0) break;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}break.c:4:19: error: 'break' is not supported: express the exit in the loop condition
// CHECK-NEXT: {{^    if \(a\[i\] < 0\) break;$}}
// CHECK-NEXT: {{^ {18}\^$}}
// CHECK-NOT: Traceback
