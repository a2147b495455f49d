// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *a) {
#pragma omp parallel for ordered
  for (int i = 0; i < n; i++)
    a[i] = 0;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}ordered.c:3:26: error: clause 'ordered' is not supported: GPU threads run the iterations at the same time with no order among them, and forcing one would serialize the loop; compute the ordered part in a serial loop after this one
// CHECK-NEXT: {{^\#pragma omp parallel for ordered$}}
// CHECK-NEXT: {{^ {25}\^$}}
// CHECK-NOT: Traceback
