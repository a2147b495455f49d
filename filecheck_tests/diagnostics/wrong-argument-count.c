// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(float *a) {
  a[0] = powf(a[1]);
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}wrong-argument-count.c:3:10: error: 'powf' takes 2 arguments, got 1
// CHECK-NEXT: {{^  a\[0\] = powf\(a\[1\]\);$}}
// CHECK-NEXT: {{^ {9}\^$}}
// CHECK-NOT: Traceback
