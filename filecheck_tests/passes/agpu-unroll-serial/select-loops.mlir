// RUN: autogpu-opt %s -p 'agpu-unroll-serial{loops=v factor=2}' | filecheck %s
// RUN: autogpu-opt %s -p 'agpu-unroll-serial{loops=u,v factor=2}' | filecheck %s --check-prefix=BOTH
// RUN: not autogpu-opt %s -p 'agpu-unroll-serial{loops=w}' 2>&1 | filecheck %s --check-prefix=NONE

// `loops` selects loops by induction variable name, here the outer v loop: the inner u loop
// is copied twice (whole) into the main loop and once into the remainder loop, not unrolled.
// CHECK-LABEL: func.func @conv_like
// CHECK: scf.for %[[V:.*]] = %c0 to %{{.*}} step %{{.*}} : i32 {
// CHECK-NEXT: scf.for %u = %c0 to %t step %c1 : i32 {
// CHECK: }
// CHECK-NEXT: %[[V1:.*]] = arith.addi %[[V]], %c1 overflow<nsw> : i32
// CHECK-NEXT: scf.for %u{{.*}} = %c0 to %t step %c1 : i32 {
// CHECK: scf.for %v{{.*}} = %{{.*}} to %t step %c1 : i32 {
// CHECK-NEXT: scf.for %u{{.*}} = %c0 to %t step %c1 : i32 {

// Both: u (inner) first, then v with the unrolled u inside each copy.
// BOTH-LABEL: func.func @conv_like
// BOTH-COUNT-2: scf.for %u{{.*}} = %c0 to %{{.*}} step %{{.*}} : i32 {

// A name no loop has is an error that lists the loops there are.
// NONE: error: agpu-unroll-serial: no serial loop has the induction variable 'w' (loops=w; the serial loops at this point: v, u)
func.func @conv_like(%x: memref<?xf32>, %t: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %v = %c0 to %t step %c1 : i32 {
    scf.for %u = %c0 to %t step %c1 : i32 {
      %0 = arith.addi %u, %v : i32
      %1 = arith.index_cast %0 : i32 to index
      %2 = memref.load %x[%1] : memref<?xf32>
      memref.store %2, %x[%1] : memref<?xf32>
    }
  }
  func.return
}
