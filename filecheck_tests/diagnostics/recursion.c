// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *a) {
  if (n > 0) f(n - 1, a);
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}recursion.c:3:14: error: 'f' calls itself (f -> f): recursion is not supported: write it as a loop
// CHECK-NEXT: {{^  if \(n > 0\) f\(n \- 1, a\);$}}
// CHECK-NEXT: {{^ {13}\^$}}
// CHECK-NOT: Traceback
