// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, int *h, int *v) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp atomic capture
    { v[i] = h[0]; h[0] += 1; }
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}atomic-capture-block.c:5:9: error: '#pragma omp atomic capture' must be followed by an expression statement of the form 'v = x++', 'v = ++x', 'v = x--', 'v = --x' or 'v = x binop= e' (the structured-block forms of capture are not supported)
// CHECK-NEXT: {{^\#pragma\ omp\ atomic\ capture$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
