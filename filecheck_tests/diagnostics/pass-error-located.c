// RUN: not autogpu-opt %s -p autogpu-vanilla -t cuda 2>&1 | filecheck --strict-whitespace %s
// Errors of the passes point at the C construct that causes them: here the read of a shared
// variable that every iteration assigns (a race in OpenMP).
void f(int n, const float *x, float *out) {
  float s = 0;
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    s = s + x[i];
  out[0] = s;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}pass-error-located.c:8:9: error: 's' is assigned by the iterations of a parallel loop and it may be read before the iteration assigns it; declare it inside the loop, list it private, or make it a reduction
// CHECK-NEXT: {{^    s = s \+ x\[i\];$}}
// CHECK-NEXT: {{^ {8}\^$}}
