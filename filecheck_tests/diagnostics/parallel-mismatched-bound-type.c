// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(size_t n, float *a) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    a[i] = 0;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}parallel-mismatched-bound-type.c:4:3: error: '#pragma omp parallel for' needs a canonical for loop, but this loop is not: its condition compares 'i' (int) with a bound of type 'unsigned long', so C compares them as 'unsigned long': declare 'i' with the bound's type, or cast the bound to int
// CHECK-NEXT: {{^  for \(int i = 0; i < n; i\+\+\)$}}
// CHECK-NEXT: {{^ {2}\^$}}
// CHECK-NOT: Traceback
