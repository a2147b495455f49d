// RUN: autogpu-opt %s -p 'convert-agpu-to-gpu{block_size=64 array_reduction=registers}' | filecheck %s --check-prefix=REGS
// RUN: autogpu-opt %s -p 'convert-agpu-to-gpu{block_size=64 array_reduction=shared}' | filecheck %s --check-prefix=SHARED
// RUN: autogpu-opt %s -p 'convert-agpu-to-gpu{block_size=64 array_reduction=global}' | filecheck %s --check-prefix=GLOBAL
// RUN: autogpu-opt %s -p 'convert-agpu-to-gpu{block_size=64}' | filecheck %s --check-prefix=REGS

// A histogram of h[2:4] (the frontend's form: one atomic update per element update), lowered
// by each strategy. registers: a private array per thread, updated in place at k - lo, folded
// into the block's shared copy; shared: shared-memory atomics; both merge into h[lo + j] with
// one atomic per element and block, and send an update outside the section to h[k] itself.
// global: the atomic stays on h.
func.func @hist(%n: i32 {agpu.name = "n"}, %x: memref<?xi32> {agpu.name = "x"}, %h: memref<?xi32> {agpu.name = "h"}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %lo = arith.constant 2 : index
  %len = arith.constant 4 : index
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 reduction(add %h[%lo : %len] : memref<?xi32>) {
    %ii = arith.index_cast %i : i32 to index
    %b = memref.load %x[%ii] : memref<?xi32>
    %k = arith.index_cast %b : i32 to index
    %old = "memref.atomic_rmw"(%c1, %h, %k) <{kind = 1 : i64}> : (i32, memref<?xi32>, index) -> i32
  }
  func.return
}

// REGS-LABEL: "gpu.func"
// REGS: ^{{.*}}(%{{.*}}: i32, %{{.*}}: memref<?xi32>, %[[H:.*]]: memref<?xi32>):
// REGS: %[[COPY:.*]] = memref.alloca() : memref<4xi32, 3 : i32>
// REGS: memref.store %{{.*}}, %[[COPY]][%{{.*}}] : memref<4xi32, 3 : i32>
// REGS: %[[PRIVATE:.*]] = memref.alloca() : memref<4xi32>
// REGS: memref.store %{{.*}}, %[[PRIVATE]][%{{.*}}] : memref<4xi32>
// REGS: gpu.barrier
// REGS: %[[OFFSET:offset.*]] = arith.subi %[[K:.*]], %{{.*}} : index
// REGS-NEXT: %[[IN:.*]] = arith.cmpi ult, %[[OFFSET]], %{{.*}} : index
// REGS-NEXT: scf.if %[[IN]] {
// REGS-NEXT: %[[CUR:.*]] = memref.load %[[PRIVATE]][%[[OFFSET]]] : memref<4xi32>
// REGS-NEXT: %[[NEW:.*]] = arith.addi %[[CUR]], %{{.*}} : i32
// REGS-NEXT: memref.store %[[NEW]], %[[PRIVATE]][%[[OFFSET]]] : memref<4xi32>
// REGS-NEXT: } else {
// REGS-NEXT: "memref.atomic_rmw"(%{{.*}}, %[[H]], %[[K]]) <{kind = 1 : i64}>
// REGS: %[[MINE:.*]] = memref.load %[[PRIVATE]][%[[J:.*]]] : memref<4xi32>
// REGS-NEXT: "memref.atomic_rmw"(%[[MINE]], %[[COPY]], %[[J]]) <{kind = 1 : i64}>
// REGS: gpu.barrier
// REGS: %[[BLOCK:.*]] = memref.load %[[COPY]][%[[E:.*]]] : memref<4xi32, 3 : i32>
// REGS-NEXT: %[[AT:.*]] = arith.addi %{{.*}}, %[[E]] : index
// REGS: "memref.atomic_rmw"(%[[BLOCK]], %[[H]], %[[AT]]) <{kind = 1 : i64}>

// SHARED-LABEL: "gpu.func"
// SHARED: ^{{.*}}(%{{.*}}: i32, %{{.*}}: memref<?xi32>, %[[H:.*]]: memref<?xi32>):
// SHARED: %[[COPY:.*]] = memref.alloca() : memref<4xi32, 3 : i32>
// SHARED-NOT: memref.alloca() : memref<4xi32>
// SHARED: gpu.barrier
// SHARED: %[[OFFSET:offset.*]] = arith.subi %[[K:.*]], %{{.*}} : index
// SHARED: scf.if %{{.*}} {
// SHARED-NEXT: "memref.atomic_rmw"(%{{.*}}, %[[COPY]], %[[OFFSET]]) <{kind = 1 : i64}>
// SHARED-NEXT: } else {
// SHARED-NEXT: "memref.atomic_rmw"(%{{.*}}, %[[H]], %[[K]]) <{kind = 1 : i64}>
// SHARED: gpu.barrier
// SHARED: "memref.atomic_rmw"(%{{.*}}, %[[H]], %{{.*}}) <{kind = 1 : i64}>

// GLOBAL-LABEL: "gpu.func"
// GLOBAL: ^{{.*}}(%{{.*}}: i32, %{{.*}}: memref<?xi32>, %[[H:.*]]: memref<?xi32>):
// GLOBAL-NOT: memref.alloca
// GLOBAL-NOT: gpu.barrier
// GLOBAL: "memref.atomic_rmw"(%{{.*}}, %[[H]], %{{.*}}) <{kind = 1 : i64}>
// GLOBAL-NOT: gpu.barrier
// GLOBAL: gpu.return
