// RUN: autogpu-opt %s --split-input-file --verify-diagnostics -p agpu-check-parallel 2>/dev/null | filecheck %s
// RUN: autogpu-opt %s --split-input-file --verify-diagnostics -p agpu-check-parallel 2>&1 >/dev/null | filecheck %s --check-prefix=WARN
// RUN: autogpu-opt %s --split-input-file --verify-diagnostics -p 'agpu-check-parallel{werror=true}' 2>/dev/null | filecheck %s --check-prefix=WERROR
// RUN: autogpu-opt %s --split-input-file --verify-diagnostics -p 'agpu-check-parallel{assume_no_alias=false}' 2>&1 >/dev/null | filecheck %s --check-prefix=ALIAS

// The legality check of parallel loops on IR given to the passes directly: a proven conflict
// is an error, an unprovable pair of accesses a warning (an error with werror), and loops it
// proves parallel pass unchanged.

// a[i] = a[i - 1]: iterations i and i + 1 conflict.
func.func @shift(%a: memref<?xf32>, %n: i32) {
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %i = %c1 to %n step %c1 : i32 {
    %im1 = arith.subi %i, %c1 : i32
    %p = arith.index_cast %im1 : i32 to index
    %v = memref.load %a[%p] : memref<?xf32>
    %ii = arith.index_cast %i : i32 to index
    memref.store %v, %a[%ii] : memref<?xf32>
  }
  func.return
}
// CHECK: error: iterations of the parallel loop over 'i' conflict: 'a[i]' written here by the iteration with i = 1 is read as 'a[im1]' (line 16:5) by the iteration with i = 2; the loop is not parallel
// WERROR: error: iterations of the parallel loop over 'i' conflict

// -----

// out[0] += x[i] without a reduction.
func.func @accumulate(%x: memref<?xf32>, %out: memref<?xf32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0 : index
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
    %ii = arith.index_cast %i : i32 to index
    %v = memref.load %x[%ii] : memref<?xf32>
    %s = memref.load %out[%z] : memref<?xf32>
    %t = arith.addf %s, %v : f32
    memref.store %t, %out[%z] : memref<?xf32>
  }
  func.return
}
// CHECK: error: every iteration of the parallel loop over 'i' reads and writes the same element 'out[0]'
// WERROR: error: every iteration of the parallel loop over 'i' reads and writes the same element 'out[0]'

// -----

// A[j*m + i] = 2 * A[j*m + i] over a collapse(2) nest, x[2c] = x[2c + 1] for c = j*m + i, a
// private array and an array reduction: all independent.
func.func @independent(%A: memref<?xf32>, %x: memref<?xf32>, %h: memref<?xi32>, %m: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %z = arith.constant 0 : index
  %len = arith.constant 4 : index
  agpu.parallel_for %j = %c0 to %n step %c1 : i32 {
    agpu.parallel_for %i = %c0 to %m step %c1 : i32 reduction(add %h[%z : %len] : memref<?xi32>) {
      %jm = arith.muli %j, %m : i32
      %c = arith.addi %jm, %i : i32
      %ci = arith.index_cast %c : i32 to index
      %v = memref.load %A[%ci] : memref<?xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %A[%ci] : memref<?xf32>
      %e = arith.muli %c, %c2 : i32
      %o = arith.addi %e, %c1 : i32
      %ei = arith.index_cast %e : i32 to index
      %oi = arith.index_cast %o : i32 to index
      %u = memref.load %x[%oi] : memref<?xf32>
      memref.store %u, %x[%ei] : memref<?xf32>
      %own = memref.alloca() : memref<4xf32>
      memref.store %u, %own[%z] : memref<4xf32>
      %one = arith.constant 1 : i32
      %hv = memref.load %h[%z] : memref<?xi32>
      %hn = arith.addi %hv, %one : i32
      memref.store %hn, %h[%z] : memref<?xi32>
    }
  }
  func.return
}
// CHECK-LABEL: func.func @independent
// CHECK: agpu.parallel_for %j
// WERROR-LABEL: func.func @independent

// -----

// a[idx[i]] = 1: which elements depends on the data.
func.func @indirect(%a: memref<?xf32>, %idx: memref<?xi32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
    %ii = arith.index_cast %i : i32 to index
    %k = memref.load %idx[%ii] : memref<?xi32>
    %kk = arith.index_cast %k : i32 to index
    %v = arith.constant 1.0 : f32
    memref.store %v, %a[%kk] : memref<?xf32>
  }
  func.return
}
// CHECK-LABEL: func.func @indirect
// WARN: warning: cannot prove that the iterations of the parallel loop over 'i' access different elements: 'a[idx[i]]' written here may be written by another iteration too ('idx[i]' is read from memory); '#pragma omp parallel for' asserts that no two iterations access the same element when one of them writes it
// WARN-NOT: warning
// WERROR: error: cannot prove that the iterations of the parallel loop over 'i' access different elements: 'a[idx[i]]'

// -----

// Distinct pointers: only assume_no_alias=false warns (here and above), not about restrict c.
func.func @pointers(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32> {agpu.restrict}, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
    %ii = arith.index_cast %i : i32 to index
    %v = memref.load %b[%ii] : memref<?xf32>
    memref.store %v, %a[%ii] : memref<?xf32>
    memref.store %v, %c[%ii] : memref<?xf32>
  }
  func.return
}
// CHECK-LABEL: func.func @pointers
// ALIAS-NOT: 'c[i]'
// ALIAS: warning: cannot prove that the iterations of the parallel loop over 'i' access different elements: 'a[i]' written here and 'b[i]' read (line 110:5) may be the same element in two iterations ('a' and 'b' are pointers that may overlap (neither is restrict))
// ALIAS-NOT: 'c[i]'
