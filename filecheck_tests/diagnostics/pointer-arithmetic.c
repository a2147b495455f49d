// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(float *p, float *out) {
  out[0] = (p + 1)[0];
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}pointer-arithmetic.c:3:15: error: pointer arithmetic on 'p' is not supported: index the array instead (p[i + 1], not p + 1)
// CHECK-NEXT: {{^  out\[0\] = \(p \+ 1\)\[0\];$}}
// CHECK-NEXT: {{^ {14}\^$}}
// CHECK-NOT: Traceback
