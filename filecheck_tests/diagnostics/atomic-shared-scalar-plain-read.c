// RUN: not autogpu-opt %s -p autogpu-vanilla -t cuda 2>&1 | filecheck --strict-whitespace %s
void f(int n, const float *x, float *out) {
  float s = 0;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp atomic
    s += x[i];
    out[i] = s;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}atomic-shared-scalar-plain-read.c:8:14: error: 's' is shared by the iterations of a parallel loop through '#pragma omp atomic' or '#pragma omp critical', and accessed here without: a race (make this access atomic too)
// CHECK-NEXT: {{^\ \ \ \ out\[i\]\ =\ s;$}}
// CHECK-NEXT: {{^ {13}\^$}}
// CHECK-NOT: Traceback
