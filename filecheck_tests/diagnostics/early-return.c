// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *a) {
  if (n <= 0) return;
  a[0] = 1;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}early-return.c:3:15: error: early 'return' is not supported: only a final 'return;' is; restructure the code with if/else
// CHECK-NEXT: {{^  if \(n <= 0\) return;$}}
// CHECK-NEXT: {{^ {14}\^$}}
// CHECK-NOT: Traceback
