// RUN: autogpu-opt %s -p 'convert-agpu-to-gpu{block_size=64 array_reduction=partials}' | filecheck %s
// RUN: autogpu-opt %s -p 'convert-agpu-to-gpu{block_size=64 array_reduction=partials}' -t cuda | filecheck %s --check-prefix=DESC

// Per-block partials of h[1:K], K a parameter: each block owns the row [block * K, block * K +
// K) of a scratch of the call (a kernel parameter after the others), sets it to the identity,
// and its threads' updates go to that row with global atomics; the x grid is bounded (264
// blocks, grid-stride). The host allocates the scratch (grid * max(K, 0) elements: the launch
// description's "scratch") and launches a second kernel on the same grid that folds, for each
// j < K, h[1 + j] with rows 0, 1, ... in order.
func.func @hist(%n: i32 {agpu.name = "n"}, %kk: i32 {agpu.name = "K"}, %x: memref<?xi32> {agpu.name = "x"}, %h: memref<?xf32> {agpu.name = "h"}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %one = arith.constant 1.5 : f32
  %lo = arith.constant 1 : index
  %len = arith.index_cast %kk : i32 to index
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 reduction(add %h[%lo : %len] : memref<?xf32>) {
    %ii = arith.index_cast %i : i32 to index
    %b = memref.load %x[%ii] : memref<?xi32>
    %k = arith.index_cast %b : i32 to index
    %old = "memref.atomic_rmw"(%one, %h, %k) <{kind = 0 : i64}> : (f32, memref<?xf32>, index) -> f32
  }
  func.return
}

// CHECK-LABEL: "gpu.func"
// CHECK: ^{{.*}}(%{{.*}}: i32, %[[K:.*]]: i32, %{{.*}}: memref<?xi32>, %[[H:.*]]: memref<?xf32>, %[[ROWS:h_partials]]: memref<?xf32>):
// CHECK: %[[LEN:.*]] = arith.index_cast %[[K]] : i32 to index
// CHECK: %[[BLOCK:block]] = arith.addi
// CHECK: %[[ROW:row]] = arith.muli %[[BLOCK]], %[[LEN]] : index
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %[[LEN]] step %{{.*}} {
// CHECK-NEXT: %[[AT:.*]] = arith.addi %[[ROW]], %[[J]] : index
// CHECK-NEXT: %[[NEG0:.*]] = arith.constant -0.000000e+00 : f32
// CHECK-NEXT: memref.store %[[NEG0]], %[[ROWS]][%[[AT]]] : memref<?xf32>
// CHECK: "gpu.barrier"()
// CHECK: %[[OFFSET:offset]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[IN:in_section]] = arith.cmpi ult, %[[OFFSET]], %[[LEN]] : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %[[MINE:.*]] = arith.addi %[[ROW]], %[[OFFSET]] : index
// CHECK-NEXT: "memref.atomic_rmw"(%{{.*}}, %[[ROWS]], %[[MINE]]) <{kind = 0 : i64}>
// CHECK-NEXT: } else {
// CHECK-NEXT: "memref.atomic_rmw"(%{{.*}}, %[[H]], %{{.*}}) <{kind = 0 : i64}>
// CHECK: sym_name = "hist_kernel"

// CHECK: ^{{.*}}(%{{.*}}: i32, %[[K2:.*]]: i32, %{{.*}}: memref<?xi32>, %[[H2:.*]]: memref<?xf32>, %[[ROWS2:h_partials]]: memref<?xf32>):
// CHECK: %[[LEN2:.*]] = arith.index_cast %[[K2]] : i32 to index
// CHECK: %[[NBLOCKS:blocks]] = arith.muli
// CHECK: scf.for %[[J2:.*]] = %{{.*}} to %[[LEN2]] step %{{.*}} {
// CHECK-NEXT: %[[AT2:.*]] = arith.addi %{{.*}}, %[[J2]] : index
// CHECK-NEXT: %[[START:.*]] = memref.load %[[H2]][%[[AT2]]] : memref<?xf32>
// CHECK:      %[[TOTAL:.*]] = scf.for %[[R:.*]] = %{{.*}} to %[[NBLOCKS]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[START]]) -> (f32) {
// CHECK-NEXT: %[[RK:.*]] = arith.muli %[[R]], %[[LEN2]] : index
// CHECK-NEXT: %[[RKJ:.*]] = arith.addi %[[RK]], %[[J2]] : index
// CHECK-NEXT: %[[P:.*]] = memref.load %[[ROWS2]][%[[RKJ]]] : memref<?xf32>
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: scf.yield %[[SUM]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %[[TOTAL]], %[[H2]][%[[AT2]]] : memref<?xf32>
// CHECK: sym_name = "hist_kernel_combine"

// CHECK-LABEL: func.func @hist(
// CHECK: %[[LIMIT:.*]] = arith.constant 264 : index
// CHECK-NEXT: %[[GRID:grid_x]] = arith.minsi %{{.*}}, %[[LIMIT]] : index
// CHECK: %[[COUNT:.*]] = arith.maxsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[ELEMENTS:.*]] = arith.muli %{{.*}}, %[[COUNT]] : index
// CHECK-NEXT: %[[SCRATCH:h_partials]] = memref.alloc(%[[ELEMENTS]]) : memref<?xf32>
// CHECK-NEXT: "gpu.launch_func"(%[[GRID]], {{.*}}, %[[SCRATCH]]) <{kernel = @kernels::@hist_kernel,
// CHECK-NEXT: %[[THREADS:.*]] = arith.constant 256 : index
// CHECK-NEXT: "gpu.launch_func"(%[[GRID]], %{{.*}}, %{{.*}}, %[[THREADS]], {{.*}}, %[[SCRATCH]]) <{kernel = @kernels::@hist_kernel_combine,

// DESC: "launches": [{"kernel": "hist_kernel", {{[^}]*}}"args": ["n", "K", "x", "h", "agpu_scratch0"]
// DESC-SAME: {"kernel": "hist_kernel_combine", {{[^}]*}}"block": ["256", "1", "1"], "args": ["n", "K", "x", "h", "agpu_scratch0"]
// DESC-SAME: "scratch": [{"name": "agpu_scratch0", "dtype": "float32", "elements": "min(max((n + 63) / 64, 1), 264) * max(K, 0)"}]
