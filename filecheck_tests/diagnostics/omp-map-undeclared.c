// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// The names of a map clause must be variables in scope.
void f(int n, float *a) {
#pragma omp target teams distribute parallel for map(to: a[0:n], b[0:n])
  for (int i = 0; i < n; i++) a[i] = 0;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-map-undeclared.c:4:66: error: 'b' in clause 'map' is not declared
// CHECK-NEXT: {{^}}#pragma omp target teams distribute parallel for map(to: a[0:n], b[0:n]){{$}}
// CHECK-NEXT: {{^ {65}\^$}}
// CHECK-NOT: Traceback
