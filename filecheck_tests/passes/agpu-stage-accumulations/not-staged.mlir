// RUN: autogpu-opt %s --split-input-file -p agpu-stage-accumulations | filecheck %s
// RUN: autogpu-opt %s --split-input-file -p agpu-stage-accumulations | filecheck %s --check-prefix=NONE

// Cases where staging would be wrong (or is not provable) and must not happen: no `_acc` slot
// anywhere, and each accumulation still stores to the array inside its loop.
// NONE-NOT: _acc

// The index depends on the loop: A[k] += x[k].
// CHECK-LABEL: func.func @index_depends_on_loop
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %A[
func.func @index_depends_on_loop(%A: memref<?xf32> {agpu.restrict}, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %k = %c0 to %n step %c1 : i32 {
    %0 = arith.index_cast %k : i32 to index
    %1 = memref.load %A[%0] : memref<?xf32>
    %2 = arith.addf %1, %1 : f32
    memref.store %2, %A[%0] : memref<?xf32>
  }
  func.return
}

// -----

// Another non-restrict pointer parameter is stored to in the loop: B may point at A[0].
// CHECK-LABEL: func.func @aliasing_store
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %A[
func.func @aliasing_store(%A: memref<?xf32>, %B: memref<?xf32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %i0 = arith.constant 0 : index
  scf.for %k = %c0 to %n step %c1 : i32 {
    %0 = arith.index_cast %k : i32 to index
    %1 = memref.load %A[%i0] : memref<?xf32>
    %2 = arith.addf %1, %1 : f32
    memref.store %2, %A[%i0] : memref<?xf32>
    memref.store %2, %B[%0] : memref<?xf32>
  }
  func.return
}

// -----

// Reading another non-restrict parameter (even a const one) may read A[0] through it.
// CHECK-LABEL: func.func @aliasing_load
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %A[
func.func @aliasing_load(%A: memref<?xf32>, %B: memref<?xf32> {agpu.const}, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %i0 = arith.constant 0 : index
  scf.for %k = %c0 to %n step %c1 : i32 {
    %0 = arith.index_cast %k : i32 to index
    %b = memref.load %B[%0] : memref<?xf32>
    %1 = memref.load %A[%i0] : memref<?xf32>
    %2 = arith.addf %1, %b : f32
    memref.store %2, %A[%i0] : memref<?xf32>
  }
  func.return
}

// -----

// Another access to A at an index not provably different from the staged one.
// CHECK-LABEL: func.func @same_array_unknown_index
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %A[
func.func @same_array_unknown_index(%A: memref<?xf32> {agpu.restrict}, %n: i32, %t: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %it = arith.index_cast %t : i32 to index
  scf.for %k = %c0 to %n step %c1 : i32 {
    %0 = arith.index_cast %k : i32 to index
    %b = memref.load %A[%0] : memref<?xf32>
    %1 = memref.load %A[%it] : memref<?xf32>
    %2 = arith.addf %1, %b : f32
    memref.store %2, %A[%it] : memref<?xf32>
  }
  func.return
}

// -----

// The accumulation is conditional: the element might never be touched, so it is not loaded
// ahead of the loop.
// CHECK-LABEL: func.func @conditional
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %A[
func.func @conditional(%A: memref<?xf32> {agpu.restrict}, %n: i32, %c: i1) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %i0 = arith.constant 0 : index
  scf.for %k = %c0 to %n step %c1 : i32 {
    scf.if %c {
      %1 = memref.load %A[%i0] : memref<?xf32>
      %2 = arith.addf %1, %1 : f32
      memref.store %2, %A[%i0] : memref<?xf32>
    }
  }
  func.return
}

// -----

// A call may read or write anything.
// CHECK-LABEL: func.func @call_in_loop
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %A[
func.func private @g()
func.func @call_in_loop(%A: memref<?xf32> {agpu.restrict}, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %i0 = arith.constant 0 : index
  scf.for %k = %c0 to %n step %c1 : i32 {
    %1 = memref.load %A[%i0] : memref<?xf32>
    func.call @g() : () -> ()
    %2 = arith.addf %1, %1 : f32
    memref.store %2, %A[%i0] : memref<?xf32>
  }
  func.return
}

// -----

// The index is read from memory that the loop writes: not invariant.
// CHECK-LABEL: func.func @index_from_memory
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %A[
func.func @index_from_memory(%A: memref<?xf32> {agpu.restrict}, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %t = memref.alloca() : memref<index>
  scf.for %k = %c0 to %n step %c1 : i32 {
    %i = memref.load %t[] : memref<index>
    %1 = memref.load %A[%i] : memref<?xf32>
    %2 = arith.addf %1, %1 : f32
    memref.store %2, %A[%i] : memref<?xf32>
  }
  func.return
}

// -----

// A serial loop around a parallel loop: other threads touch memory between its iterations.
// CHECK-LABEL: func.func @parallel_inside
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %A[
func.func @parallel_inside(%A: memref<?xf32> {agpu.restrict}, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %i0 = arith.constant 0 : index
  scf.for %k = %c0 to %n step %c1 : i32 {
    %1 = memref.load %A[%i0] : memref<?xf32>
    %2 = arith.addf %1, %1 : f32
    memref.store %2, %A[%i0] : memref<?xf32>
    agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
      %ii = arith.index_cast %i : i32 to index
      %3 = memref.load %A[%ii] : memref<?xf32>
    }
  }
  func.return
}

// -----

// A loop that never runs: nothing to stage.
// CHECK-LABEL: func.func @empty_loop
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %A[
func.func @empty_loop(%A: memref<?xf32> {agpu.restrict}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %i0 = arith.constant 0 : index
  scf.for %k = %c1 to %c0 step %c1 : i32 {
    %1 = memref.load %A[%i0] : memref<?xf32>
    %2 = arith.addf %1, %1 : f32
    memref.store %2, %A[%i0] : memref<?xf32>
  }
  func.return
}

// -----

// Rank-0 slots (scalar variables) are registers already: left alone.
// CHECK-LABEL: func.func @scalar_slot
func.func @scalar_slot(%x: memref<?xf32> {agpu.restrict}, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s = memref.alloca() : memref<f32>
  scf.for %k = %c0 to %n step %c1 : i32 {
    %0 = arith.index_cast %k : i32 to index
    %1 = memref.load %x[%0] : memref<?xf32>
    %2 = memref.load %s[] : memref<f32>
    %3 = arith.addf %2, %1 : f32
    memref.store %3, %s[] : memref<f32>
  }
  func.return
}

// -----

// Indices computed in different integer types are not compared (no proof either way).
// CHECK-LABEL: func.func @mixed_index_types
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %A[
func.func @mixed_index_types(%A: memref<?xf32> {agpu.restrict}, %n: i32, %t: i32, %u: i64) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %it = arith.index_cast %t : i32 to index
  %iu = arith.index_cast %u : i64 to index
  scf.for %k = %c0 to %n step %c1 : i32 {
    %b = memref.load %A[%iu] : memref<?xf32>
    %1 = memref.load %A[%it] : memref<?xf32>
    %2 = arith.addf %1, %b : f32
    memref.store %2, %A[%it] : memref<?xf32>
  }
  func.return
}

// -----

// An array that is a reduction variable of the enclosing parallel loop is left to the lowering.
// CHECK-LABEL: func.func @reduction_array
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %A[
func.func @reduction_array(%A: memref<?xf32> {agpu.restrict}, %x: memref<?xf32> {agpu.restrict}, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %i0 = arith.constant 0 : index
  %len = arith.constant 1 : index
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 reduction(add %A[%i0 : %len] : memref<?xf32>) {
    scf.for %k = %c0 to %n step %c1 : i32 {
      %0 = arith.index_cast %k : i32 to index
      %b = memref.load %x[%0] : memref<?xf32>
      %1 = memref.load %A[%i0] : memref<?xf32>
      %2 = arith.addf %1, %b : f32
      memref.store %2, %A[%i0] : memref<?xf32>
    }
  }
  func.return
}
