// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(const int n, int *out) {
  n = n + 1;
  out[0] = n;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}const-parameter.c:3:3: error: cannot assign to const variable 'n'
// CHECK-NEXT: {{^  n = n \+ 1;$}}
// CHECK-NEXT: {{^ {2}\^$}}
// CHECK-NOT: Traceback
