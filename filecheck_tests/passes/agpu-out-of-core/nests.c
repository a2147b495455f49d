// RUN: autogpu-opt %s -p agpu-out-of-core | filecheck %s
// RUN: autogpu-opt %s -p agpu-out-of-core,autogpu-vanilla -t cuda | filecheck %s --check-prefix=DESC

// Two nests in a time loop: each is split with bounds of its own, marked with its index, and
// the function records one footprint entry per nest.
void steps(int t, int n, float *a, float *b) {
  for (int s = 0; s < t; s++) {
#pragma omp parallel for
    for (int i = 1; i < n - 1; i++)
      b[i] = a[i - 1] + a[i + 1];
#pragma omp parallel for
    for (int i = 0; i < n; i++)
      a[i] = b[i];
  }
}
// CHECK-LABEL: func.func @steps(
// CHECK-SAME: %[[LO:agpu_part_lo[^:]*]]: i32 {agpu.name = "agpu_part_lo", {{.*}}}, %[[HI:agpu_part_hi[^:]*]]: i32 {{.*}}, %[[LO1:agpu_part_lo1[^:]*]]: i32 {agpu.name = "agpu_part_lo1", {{.*}}}, %[[HI1:agpu_part_hi1[^:]*]]: i32 {agpu.name = "agpu_part_hi1", {{.*}}})
// CHECK-SAME: agpu.parts = [{lo = "agpu_part_lo", hi = "agpu_part_hi", lb = "1", ub = "(n - 1)", arrays = [{name = "a", row = "1", read = ["(agpu_part_lo - 1)", "(agpu_part_hi + 1)"]}, {name = "b", row = "1", write = ["agpu_part_lo", "agpu_part_hi"], alloc}]}, {lo = "agpu_part_lo1", hi = "agpu_part_hi1", lb = "0", ub = "n", arrays = [{name = "b", row = "1", read = ["agpu_part_lo1", "agpu_part_hi1"]}, {name = "a", row = "1", write = ["agpu_part_lo1", "agpu_part_hi1"], alloc}]}]
// CHECK:      scf.for
// CHECK:        %[[FIRST:.*]] = arith.maxsi %{{.*}}, %[[LO]] : i32
// CHECK-NEXT:   %[[END:.*]] = arith.minsi %{{.*}}, %[[HI]] : i32
// CHECK-NEXT:   agpu.parallel_for %{{.*}} = %[[FIRST]] to %[[END]] step %{{.*}} : i32
// CHECK:        } {agpu.part_nest = 0 : i64}
// CHECK:        %[[FIRST1:.*]] = arith.maxsi %{{.*}}, %[[LO1]] : i32
// CHECK-NEXT:   %[[END1:.*]] = arith.minsi %{{.*}}, %[[HI1]] : i32
// CHECK-NEXT:   agpu.parallel_for %{{.*}} = %[[FIRST1]] to %[[END1]] step %{{.*}} : i32
// CHECK:        } {agpu.part_nest = 1 : i64}

// DESC: "kernel": "steps_kernel0"{{.*}}"part_nest": 0}
// DESC-SAME: "kernel": "steps_kernel1"{{.*}}"part_nest": 1}
// DESC-SAME: "steps": [{"for": {"var": "s"{{.*}}"body": [{"launch": 0}, {"launch": 1}]}}]
// DESC-SAME: "parts": [{"lo": "agpu_part_lo",{{.*}}}, {"lo": "agpu_part_lo1",
