// RUN: autogpu-opt %s 2>/dev/null | filecheck %s
// RUN: autogpu-opt %s -p autogpu-vanilla -t cuda 2>/dev/null | filecheck %s --check-prefix=LAUNCH

// OpenMP `map` clauses become the function attribute `agpu.maps` (docs/ir.md, "Data mapping"):
// the arrays whose data does not go both ways, which the launch description's params carry as
// "map" and the executors honour. Arrays mapped `tofrom`, or used outside a mapped construct,
// are not listed; a function without map clauses has no attribute.

void mapped(int n, const float *a, float *b, float *c, float *d) {
#pragma omp target teams distribute parallel for map(to: a[0:n], c[0:n]) map(from: b[0:n]) map(alloc: d[0:n])
  for (int i = 0; i < n; i++) { d[i] = 2 * a[i]; b[i] = d[i] + c[i]; }
}
// CHECK-LABEL: func.func @mapped(
// CHECK-SAME:    %[[A:[a-z]+]]: memref<?xf32> {agpu.name = "a"
// CHECK-SAME:    attributes {agpu.maps = {a = "to", b = "from", c = "to", d = "alloc"}}
// CHECK:         agpu.parallel_for
// LAUNCH:      "name": "mapped", "params": [{"name": "n", "kind": "scalar", "dtype": "int32", "ctype": "int"},
// LAUNCH-SAME: {"name": "a", {{[^}]*}}"extents": null, "map": "to"},
// LAUNCH-SAME: {"name": "b", {{[^}]*}}"extents": null, "map": "from"},
// LAUNCH-SAME: {"name": "c", {{[^}]*}}"extents": null, "map": "to"},
// LAUNCH-SAME: {"name": "d", {{[^}]*}}"extents": null, "map": "alloc"}]

void data_region(int n, const float *a, float *tmp, float *out) {
#pragma omp target data map(to: a[0:n]) map(alloc: tmp[0:n]) map(tofrom: out[0:n])
  {
#pragma omp target teams distribute parallel for map(tofrom: tmp[0:n])
    for (int i = 0; i < n; i++) tmp[i] = a[i] * 3;
#pragma omp target teams distribute parallel for
    for (int i = 0; i < n; i++) out[i] += tmp[i];
  }
}
// CHECK-LABEL: func.func @data_region(
// CHECK-SAME:    attributes {agpu.maps = {a = "to", tmp = "alloc"}}
// LAUNCH:      "name": "data_region", "params": [{"name": "n", {{[^}]*}}},
// LAUNCH-SAME: {"name": "a", {{[^}]*}}"map": "to"},
// LAUNCH-SAME: {"name": "tmp", {{[^}]*}}"map": "alloc"},
// LAUNCH-SAME: {"name": "out", {{[^}]*}}"extents": null}]

void unmapped(int n, float *x) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) x[i] += 1;
}
// CHECK-LABEL: func.func @unmapped(
// CHECK-NOT:     agpu.maps
// CHECK:         func.return
