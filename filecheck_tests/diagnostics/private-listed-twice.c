// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *a) {
  float t;
#pragma omp parallel for private(t) private(t)
  for (int i = 0; i < n; i++) {
    t = a[i];
    a[i] = t * t;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}private-listed-twice.c:4:45: error: 't' is listed twice in private clauses
// CHECK-NEXT: {{^\#pragma omp parallel for private\(t\) private\(t\)$}}
// CHECK-NEXT: {{^ {44}\^$}}
// CHECK-NOT: Traceback
