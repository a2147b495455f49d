// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// An error inside a macro's expansion points at the use of the macro in the user's source.
#define IDX(i, j) ((i) * n + (j))
#define AT(A, i, j) A[IDX(i, j)]
void f(float *a, int m) {
  for (int i = 0; i < m; i++)
    a[i] = AT(a, i, 1);
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}macro-expansion-error.c:7:12: error: use of undeclared identifier 'n'
// CHECK-NEXT: {{^    a\[i\] = AT\(a, i, 1\);$}}
// CHECK-NEXT: {{^ {11}\^$}}
// CHECK-NOT: Traceback
