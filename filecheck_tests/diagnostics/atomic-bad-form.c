// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, int *h) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp atomic
    h[i % 4] = h[i % 4] % 3;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}atomic-bad-form.c:6:14: error: '#pragma omp atomic update' needs a statement of the form 'x binop= e', 'x = x binop e', 'x = e binop x', 'x++', '++x', 'x--' or '--x'
// CHECK-NEXT: {{^\ \ \ \ h\[i\ %\ 4\]\ =\ h\[i\ %\ 4\]\ %\ 3;$}}
// CHECK-NEXT: {{^ {13}\^$}}
// CHECK-NOT: Traceback
