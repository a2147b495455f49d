// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// map types are to, from, tofrom and alloc.
void f(int n, float *a) {
#pragma omp target teams distribute parallel for map(delete: a[0:n])
  for (int i = 0; i < n; i++) a[i] = 0;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}omp-map-bad-type.c:4:54: error: map type must be one of to, from, tofrom, alloc (with modifiers always, close, present), got 'delete'
// CHECK-NEXT: {{^}}#pragma omp target teams distribute parallel for map(delete: a[0:n]){{$}}
// CHECK-NEXT: {{^ {53}\^$}}
// CHECK-NOT: Traceback
