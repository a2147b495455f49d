// RUN: autogpu-opt %s -t cuda | filecheck %s

// scf control flow as C statements; loop-carried values, if results and while results become
// variables assigned at the end of their region.

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (i32, memref<?xf32>, memref<?xi32>) -> (), kernel}> ({
    ^bb0(%n: i32, %x: memref<?xf32>, %out: memref<?xi32>):
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %i0 = arith.constant 0 : index
      %zero = arith.constant 0.0 : f32
      // A reduction carried through a loop.
      %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) : i32 {
        %ix = arith.index_cast %i : i32 to index
        %v = memref.load %x[%ix] : memref<?xf32>
        %next = arith.addf %acc, %v : f32
        scf.yield %next : f32
      }
      memref.store %sum, %x[%i0] : memref<?xf32>
      // Two carried values swapped: a parallel assignment needs a temporary.
      %fib:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0, %b = %c1) -> (i32, i32) : i32 {
        %s = arith.addi %a, %b overflow<nsw> : i32
        scf.yield %b, %s : i32, i32
      }
      memref.store %fib#0, %out[%i0] : memref<?xi32>
      // A sibling loop reuses the name i; a step other than one.
      %c2 = arith.constant 2 : i32
      scf.for %i = %c0 to %n step %c2 : i32 {
        %ix = arith.index_cast %i : i32 to index
        memref.store %i, %out[%ix] : memref<?xi32>
      }
      // The loop bound reads memory: it must not be re-read at every iteration.
      %bound = memref.load %out[%i0] : memref<?xi32>
      scf.for %k = %c0 to %bound step %c1 : i32 {
        memref.store %k, %out[%i0] : memref<?xi32>
      }
      // A load is not moved past a store.
      %old = memref.load %out[%i0] : memref<?xi32>
      memref.store %n, %out[%i0] : memref<?xi32>
      %i1 = arith.constant 1 : index
      memref.store %old, %out[%i1] : memref<?xi32>
      // scf.if with a result and pure branches: a conditional expression (lazy, so the load
      // in the branch is only made when the guard holds).
      %in = arith.cmpi slt, %c1, %n : i32
      %pos = scf.if %in -> (i1) {
        %i1x = arith.index_cast %c1 : i32 to index
        %e = memref.load %x[%i1x] : memref<?xf32>
        %p = arith.cmpf ogt, %e, %zero : f32
        scf.yield %p : i1
      } else {
        %false = arith.constant false
        scf.yield %false : i1
      }
      %posi = arith.extui %pos : i1 to i32
      memref.store %posi, %out[%i0] : memref<?xi32>
      // scf.if with results and statements: a variable assigned in each branch.
      %r = scf.if %in -> (i32) {
        memref.store %c0, %out[%i0] : memref<?xi32>
        scf.yield %n : i32
      } else {
        %m = arith.muli %n, %n overflow<nsw> : i32
        scf.yield %m : i32
      }
      memref.store %r, %out[%i1] : memref<?xi32>
      // An else branch that is just another if: `else if`.
      scf.if %in {
        memref.store %c0, %out[%i0] : memref<?xi32>
      } else {
        %neg = arith.cmpi slt, %n, %c0 : i32
        scf.if %neg {
          memref.store %c1, %out[%i0] : memref<?xi32>
        } else {
          memref.store %n, %out[%i0] : memref<?xi32>
        }
      }
      // Only an else branch.
      scf.if %in {
      } else {
        memref.store %c1, %out[%i0] : memref<?xi32>
      }
      // A C variable (memory slot) and a while loop on it: while (cond) { ... }.
      %count = memref.alloca() : memref<i32>
      memref.store %c0, %count[] : memref<i32>
      scf.while () : () -> () {
        %cv = memref.load %count[] : memref<i32>
        %more = arith.cmpi slt, %cv, %n : i32
        scf.condition(%more)
      } do {
        %cv2 = memref.load %count[] : memref<i32>
        %inc = arith.addi %cv2, %c1 overflow<nsw> : i32
        memref.store %inc, %count[] : memref<i32>
        scf.yield
      }
      // do { ... } while (cond): the body is in the before region.
      scf.while () : () -> () {
        %cv3 = memref.load %count[] : memref<i32>
        %dec = arith.subi %cv3, %c1 overflow<nsw> : i32
        memref.store %dec, %count[] : memref<i32>
        %cv4 = memref.load %count[] : memref<i32>
        %again = arith.cmpi sgt, %cv4, %c0 : i32
        scf.condition(%again)
      } do {
        scf.yield
      }
      // Values carried and forwarded: while (true) { ...; if (!cond) break; ... }.
      %res = scf.while (%v = %n) : (i32) -> i32 {
        %half = arith.divsi %v, %c2 : i32
        %big = arith.cmpi sgt, %half, %c1 : i32
        scf.condition(%big) %half : i32
      } do {
      ^bb0(%h: i32):
        %hx = arith.index_cast %h : i32 to index
        memref.store %h, %out[%hx] : memref<?xi32>
        scf.yield %h : i32
      }
      memref.store %res, %out[%i0] : memref<?xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "control"} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: extern "C" __global__ void control(int n, float *x, int *out) {
// CHECK-NEXT:    float [[SUM:sum]] = 0.0f;
// CHECK-NEXT:    for (int i = 0; i < n; i++) {
// CHECK-NEXT:      [[SUM]] = [[SUM]] + x[i];
// CHECK-NEXT:    }
// CHECK-NEXT:    x[0] = [[SUM]];
// CHECK-NEXT:    int [[A:fib]] = 0;
// CHECK-NEXT:    int [[B:.*]] = 1;
// CHECK-NEXT:    for (int i = 0; i < n; i++) {
// CHECK-NEXT:      const int [[T:.*]] = [[A]] + [[B]];
// CHECK-NEXT:      [[A]] = [[B]];
// CHECK-NEXT:      [[B]] = [[T]];
// CHECK-NEXT:    }
// CHECK-NEXT:    out[0] = [[A]];
// CHECK-NEXT:    for (int i = 0; i < n; i += 2) {
// CHECK-NEXT:      out[i] = i;
// CHECK-NEXT:    }
// CHECK-NEXT:    const int [[BOUND:bound]] = out[0];
// CHECK-NEXT:    for (int k = 0; k < [[BOUND]]; k++) {
// CHECK-NEXT:      out[0] = k;
// CHECK-NEXT:    }
// CHECK-NEXT:    const int [[OLD:old]] = out[0];
// CHECK-NEXT:    out[0] = n;
// CHECK-NEXT:    out[1] = [[OLD]];
// CHECK-NEXT:    const bool [[IN:in]] = 1 < n;
// CHECK-NEXT:    out[0] = (int)([[IN]] && x[1] > 0.0f);
// CHECK-NEXT:    int [[R:r]];
// CHECK-NEXT:    if ([[IN]]) {
// CHECK-NEXT:      out[0] = 0;
// CHECK-NEXT:      [[R]] = n;
// CHECK-NEXT:    } else {
// CHECK-NEXT:      [[R]] = n * n;
// CHECK-NEXT:    }
// CHECK-NEXT:    out[1] = [[R]];
// CHECK-NEXT:    if ([[IN]]) {
// CHECK-NEXT:      out[0] = 0;
// CHECK-NEXT:    } else if (n < 0) {
// CHECK-NEXT:      out[0] = 1;
// CHECK-NEXT:    } else {
// CHECK-NEXT:      out[0] = n;
// CHECK-NEXT:    }
// CHECK-NEXT:    if (![[IN]]) {
// CHECK-NEXT:      out[0] = 1;
// CHECK-NEXT:    }
// CHECK-NEXT:    int [[COUNT:count]] = 0;
// CHECK-NEXT:    while ([[COUNT]] < n) {
// CHECK-NEXT:      [[COUNT]] = [[COUNT]] + 1;
// CHECK-NEXT:    }
// CHECK-NEXT:    do {
// CHECK-NEXT:      [[COUNT]] = [[COUNT]] - 1;
// CHECK-NEXT:    } while ([[COUNT]] > 0);
// CHECK-NEXT:    int [[V:v]] = n;
// CHECK-NEXT:    int [[RES:res]];
// CHECK-NEXT:    while (true) {
// CHECK-NEXT:      const int [[HALF:half]] = [[V]] / 2;
// CHECK-NEXT:      [[RES]] = [[HALF]];
// CHECK-NEXT:      if (!([[HALF]] > 1)) break;
// CHECK-NEXT:      out[[[RES]]] = [[RES]];
// CHECK-NEXT:      [[V]] = [[RES]];
// CHECK-NEXT:    }
// CHECK-NEXT:    out[0] = [[RES]];
// CHECK-NEXT:  }
