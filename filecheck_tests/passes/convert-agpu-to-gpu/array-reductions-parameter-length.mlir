// RUN: autogpu-opt %s -p 'convert-agpu-to-gpu{block_size=64}' | filecheck %s
// RUN: autogpu-opt %s -p 'convert-agpu-to-gpu{block_size=64 array_reduction=global}' | filecheck %s --check-prefix=GLOBAL

// A histogram of h[1:K], K a parameter: the block's copy lives in dynamic shared memory
// (memref<?xi32>) where K fits the budget (fits_shared = K <= 8192, unsigned), the updates go to
// the copy only there, and the launch asks for K * 4 bytes where it fits, 0 where it does not.
func.func @hist(%n: i32 {agpu.name = "n"}, %kk: i32 {agpu.name = "K"}, %x: memref<?xi32> {agpu.name = "x"}, %h: memref<?xi32> {agpu.name = "h"}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %lo = arith.constant 1 : index
  %len = arith.index_cast %kk : i32 to index
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 reduction(add %h[%lo : %len] : memref<?xi32>) {
    %ii = arith.index_cast %i : i32 to index
    %b = memref.load %x[%ii] : memref<?xi32>
    %k = arith.index_cast %b : i32 to index
    %old = "memref.atomic_rmw"(%c1, %h, %k) <{kind = 1 : i64}> : (i32, memref<?xi32>, index) -> i32
  }
  func.return
}

// CHECK-LABEL: "gpu.func"
// CHECK: ^{{.*}}(%{{.*}}: i32, %[[K:.*]]: i32, %{{.*}}: memref<?xi32>, %[[H:.*]]: memref<?xi32>):
// CHECK: %[[LEN:.*]] = arith.index_cast %[[K]] : i32 to index
// CHECK: %[[CAP:.*]] = arith.constant 8192 : index
// CHECK-NEXT: %[[FITS:fits_shared.*]] = arith.cmpi ule, %[[LEN]], %[[CAP]] : index
// CHECK-NEXT: %[[COPY:.*]] = memref.alloca(%[[LEN]]) : memref<?xi32, 3 : i32>
// CHECK-NEXT: scf.if %[[FITS]] {
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %[[LEN]] step %{{.*}} {
// CHECK: memref.store %{{.*}}, %[[COPY]][%[[J]]] : memref<?xi32, 3 : i32>
// CHECK: gpu.barrier
// CHECK: %[[OFFSET:offset.*]] = arith.subi %[[AT:.*]], %{{.*}} : index
// CHECK-NEXT: %[[INSIDE:.*]] = arith.cmpi ult, %[[OFFSET]], %[[LEN]] : index
// CHECK-NEXT: %[[IN:in_section.*]] = arith.andi %[[FITS]], %[[INSIDE]] : i1
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: "memref.atomic_rmw"(%{{.*}}, %[[COPY]], %[[OFFSET]]) <{kind = 1 : i64}>
// CHECK-NEXT: } else {
// CHECK-NEXT: "memref.atomic_rmw"(%{{.*}}, %[[H]], %[[AT]]) <{kind = 1 : i64}>
// CHECK: gpu.barrier
// CHECK-NEXT: scf.if %[[FITS]] {
// CHECK: %[[PART:.*]] = memref.load %[[COPY]][%[[E:.*]]] : memref<?xi32, 3 : i32>
// CHECK: "memref.atomic_rmw"(%[[PART]], %[[H]], %{{.*}}) <{kind = 1 : i64}>

// CHECK-LABEL: func.func @hist
// CHECK: %[[HK:len.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[HFITS:.*]] = arith.cmpi ule, %[[HK]], %{{.*}} : index
// CHECK-NEXT: %[[FLAG:.*]] = arith.extui %[[HFITS]] : i1 to i64
// CHECK: %[[BYTES:shared_bytes.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK-NEXT: "gpu.launch_func"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BYTES]], %{{.*}})

// GLOBAL-LABEL: "gpu.func"
// GLOBAL-NOT: memref.alloca
// GLOBAL: "memref.atomic_rmw"
// GLOBAL-LABEL: func.func @hist
// GLOBAL-NOT: shared_bytes
// GLOBAL: func.return
