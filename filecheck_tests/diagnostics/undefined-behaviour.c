// RUN: autogpu-opt %s 2>&1 >/dev/null | filecheck --strict-whitespace %s
// Undefined behaviour whatever the inputs compiles, with a located warning.
void f(int n, int *a) {
  int k;
  a[0] = 2147483647 + 10;
  a[1] = n / 0;
  a[2] = n % 0;
  a[3] = k;
}

// CHECK: {{^.*}}undefined-behaviour.c:5:21: warning: integer overflow: the exact value 2147483657 does not fit in 'int' (undefined behaviour in C)
// CHECK-NEXT: {{^  a\[0\] = 2147483647 \+ 10;$}}
// CHECK-NEXT: {{^ {20}\^$}}
// CHECK: {{^.*}}undefined-behaviour.c:6:12: warning: division by zero (undefined behaviour in C)
// CHECK: {{^.*}}undefined-behaviour.c:7:12: warning: remainder by zero (undefined behaviour in C)
// CHECK: {{^.*}}undefined-behaviour.c:8:10: warning: 'k' is used uninitialized: its value is undefined (initialize it where it is declared)
