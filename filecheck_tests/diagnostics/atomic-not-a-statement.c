// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, int *h) {
#pragma omp atomic
  for (int i = 0; i < n; i++)
    h[i] += 1;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}atomic-not-a-statement.c:3:9: error: '#pragma omp atomic update' must be followed by an expression statement of the form 'x binop= e', 'x = x binop e', 'x = e binop x', 'x++', '++x', 'x--' or '--x'
// CHECK-NEXT: {{^\#pragma\ omp\ atomic$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
