// RUN: autogpu-opt %s --split-input-file --verify-diagnostics -p convert-agpu-to-gpu | filecheck %s

// Constructs the lowering refuses, each with a message naming it (never a wrong kernel).

func.func @returns_value(%n: i32) -> i32 {
  func.return %n : i32
}
// CHECK: function 'returns_value' returns a value: only void functions can be lowered to kernels

// -----

func.func @parallel_in_serial_loop_bound_from_memory(%A: memref<?xi32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0 : index
  %steps = memref.load %A[%z] : memref<?xi32>
  scf.for %t = %c0 to %steps step %c1 : i32 {
    agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
    }
  }
  func.return
}
// CHECK: the bounds of this loop around kernels depend on 'steps', which is computed from memory

// -----

func.func @parallel_in_carrying_while(%A: memref<?xi32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.while (%k = %c0) : (i32) -> (i32) {
    %go = arith.cmpi slt, %k, %n : i32
    scf.condition(%go) %k : i32
  } do {
  ^bb0(%k2: i32):
    agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
    }
    %next = arith.addi %k2, %c1 : i32
    scf.yield %next : i32
  }
  func.return
}
// CHECK: a 'while' loop around parallel loops cannot carry values

// -----

func.func @parallel_in_while_condition(%A: memref<?xi32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0 : index
  scf.while () : () -> () {
    agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
    }
    %v = memref.load %A[%z] : memref<?xi32>
    %go = arith.cmpi slt, %v, %n : i32
    scf.condition(%go)
  } do {
    agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
    }
    scf.yield
  }
  func.return
}
// CHECK: a parallel loop in the condition of a 'while' loop cannot be launched from the host

// -----

func.func @if_on_a_float_parameter(%n: i32, %tol: f32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %half = arith.constant 5.000000e-01 : f32
  scf.for %t = %c0 to %n step %c1 : i32 {
    agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
    }
  }
  %big = arith.cmpf ogt, %tol, %half : f32
  scf.for %t = %c0 to %n step %c1 : i32 {
    scf.if %big {
      agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
      }
    }
  }
  func.return
}
// CHECK: the condition of this 'if' around kernels is computed with arith.cmpf

// -----

func.func @parallel_in_carried_loop(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %t = %c0 to %n step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
    agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
    }
    scf.yield %acc : i32
  }
  func.return
}
// CHECK: a loop around parallel loops cannot carry values (iter_args)

// -----

func.func @mapping_conflict(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %j = %c0 to %n step %c1 : i32 mapping y {
    agpu.parallel_for %i = %c0 to %n step %c1 : i32 mapping y {
    }
  }
  func.return
}
// CHECK: two parallel loops of one nest are mapped to y: the loop over 'j' and the loop over 'i'

// -----

// The inner loop's bounds depend on j (a triangle): it runs serially in each thread, so it
// cannot honour a mapping.
func.func @mapping_off_chain(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %j = %c0 to %n step %c1 : i32 {
    agpu.parallel_for %i = %c0 to %j step %c1 : i32 mapping x {
    }
  }
  func.return
}
// CHECK: agpu.parallel_for with 'mapping x' is not perfectly nested in the outer parallel loops

// -----

func.func @bool_reduction(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ok = memref.alloca() : memref<i1>
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 reduction(land %ok : memref<i1>) {
  }
  func.return
}
// CHECK: a 'land' reduction over a _Bool ('ok') is not lowered: the frontend writes a _Bool's reductions as 'and', 'or' or 'xor'

// -----

func.func @array_reduction(%n: i32, %lo: index, %len: index) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %h = memref.alloca() : memref<16xi32>
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 reduction(add %h[%lo : %len] : memref<16xi32>) {
  }
  func.return
}
// CHECK: the reduced array 'h' must be an array parameter of the function

// -----

// `s = s + x[i]` without reduction(+: s): each iteration reads the shared s (a race in OpenMP).
func.func @shared_accumulator(%x: memref<?xf32>, %out: memref<?xf32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s = memref.alloca() : memref<f32>
  %zero = arith.constant 0.0 : f32
  memref.store %zero, %s[] : memref<f32>
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
    %ii = arith.index_cast %i : i32 to index
    %v = memref.load %x[%ii] : memref<?xf32>
    %old = memref.load %s[] : memref<f32>
    %new = arith.addf %old, %v : f32
    memref.store %new, %s[] : memref<f32>
  }
  %r = memref.load %s[] : memref<f32>
  %z = arith.constant 0 : index
  memref.store %r, %out[%z] : memref<?xf32>
  func.return
}
// CHECK: 's' is assigned by the iterations of a parallel loop and it may be read before the iteration assigns it

// -----

// `last = i` in every iteration, read after the loop: lastprivate semantics, not lowered.
func.func @value_after_loop(%out: memref<?xi32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %last = memref.alloca() : memref<i32>
  memref.store %c0, %last[] : memref<i32>
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
    memref.store %i, %last[] : memref<i32>
  }
  %r = memref.load %last[] : memref<i32>
  %z = arith.constant 0 : index
  memref.store %r, %out[%z] : memref<?xi32>
  func.return
}
// CHECK: 'last' is assigned by the iterations of a parallel loop and code after the loop reads the value the loop left in it

// -----

func.func @bound_from_memory(%A: memref<?xi32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0 : index
  %n = memref.load %A[%z] : memref<?xi32>
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
  }
  func.return
}
// CHECK: the bounds of this parallel loop depend on 'n', which is computed from memory: the host cannot compute the launch size

// -----

func.func @bound_not_expressible(%n: i32, %m: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %lt = arith.cmpi slt, %n, %m : i32
  %ub = arith.select %lt, %n, %m : i32
  agpu.parallel_for %i = %c0 to %ub step %c1 : i32 {
  }
  func.return
}
// CHECK: the bounds of this parallel loop are computed with arith.select ('ub'), which the launch description cannot express

// -----

func.func @already_lowered() {
  func.return
}
"gpu.module"() <{sym_name = "kernels"}> ({
^bb0:
}) : () -> ()
// CHECK: the module already has a gpu.module @kernels: convert-agpu-to-gpu runs once

// -----

// a[i] = a[i - 1]: iterations i and i + 1 conflict; IR given directly is checked too (the
// frontend checks C), and the loop is not lowered.
func.func @loop_carried(%a: memref<?xf32>, %n: i32) {
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
// CHECK: iterations of the parallel loop over 'i' conflict: 'a[i]' written here by the iteration with i = 1 is read as 'a[im1]' (line 238:5) by the iteration with i = 2; the loop is not parallel

// -----

// A plain store to a reduced array would race: the frontend makes each update one atomic.
func.func @plain_store_to_reduced_array(%h: memref<?xi32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %lo = arith.constant 0 : index
  %len = arith.constant 4 : index
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 reduction(add %h[%lo : %len] : memref<?xi32>) {
    memref.store %c1, %h[%lo] : memref<?xi32>
  }
  func.return
}
// CHECK: the reduced array 'h' is accessed here other than by an atomic update of one of its elements
