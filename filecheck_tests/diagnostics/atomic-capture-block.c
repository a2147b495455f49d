// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, int *h, int *v) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp atomic capture
    { v[i] = h[0]; h[1] += 1; }
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}atomic-capture-block.c:6:5: error: '#pragma omp atomic capture' on a block needs one of '{{[{]}}v = x; x binop= e;}', '{{[{]}}x binop= e; v = x;}' or '{{[{]}}v = x; x = e;}', with one location x
// CHECK-NEXT: {{^\ \ \ \ \{\ v\[i\]\ =\ h\[0\];\ h\[1\]\ \+=\ 1;\ \}$}}
// CHECK-NEXT: {{^ {4}\^$}}
// CHECK-NOT: Traceback
