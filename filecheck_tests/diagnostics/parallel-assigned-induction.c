// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, float *a) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    a[i] = 0;
    i = i + 1;
  }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}parallel-assigned-induction.c:4:3: error: '#pragma omp parallel for' needs a canonical for loop, but this loop is not: its variable 'i' is assigned in the loop body
// CHECK-NEXT: {{^  for \(int i = 0; i < n; i\+\+\) \{$}}
// CHECK-NEXT: {{^ {2}\^$}}
// CHECK-NOT: Traceback
