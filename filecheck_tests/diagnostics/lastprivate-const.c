// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, const float k, float *a) {
#pragma omp parallel for lastprivate(k)
  for (int i = 0; i < n; i++)
    a[i] = k;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}lastprivate-const.c:3:38: error: lastprivate variable 'k' is const
// CHECK-NEXT: {{^\#pragma omp parallel for lastprivate\(k\)$}}
// CHECK-NEXT: {{^ {37}\^$}}
// CHECK-NOT: Traceback
