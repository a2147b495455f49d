// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// A whole-array reduction needs the array's extents as constants or parameters; one that is an
// expression is named with a section instead.
void f(int n, int k, const int *b, int h[k + 1]) {
#pragma omp parallel for reduction(+: h)
  for (int i = 0; i < n; i++)
    h[b[i] % (k + 1)] += 1;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}reduction-array-extent-expression.c:5:39: error: the extent 'k + 1' of 'h' is an expression: name the elements to reduce with a section whose bounds are constants or variables, 'reduction(op: h[lo:len])'
// CHECK-NOT: Traceback
