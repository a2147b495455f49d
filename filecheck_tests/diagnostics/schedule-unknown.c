// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *a) {
#pragma omp parallel for schedule(fastest, 4)
  for (int i = 0; i < n; i++)
    a[i] = 0;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}schedule-unknown.c:3:35: error: schedule needs one of static, dynamic, guided, auto, runtime (optionally with a chunk size: schedule(dynamic, 4)), got 'fastest, 4'
// CHECK-NEXT: {{^\#pragma omp parallel for schedule\(fastest, 4\)$}}
// CHECK-NEXT: {{^ {34}\^$}}
// CHECK-NOT: Traceback
