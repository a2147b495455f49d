// RUN: autogpu-opt %s --split-input-file -p 'gpu-vectorize' | filecheck %s
// RUN: autogpu-opt %s --split-input-file -p 'gpu-vectorize{width=2}' | filecheck %s --check-prefix=TWO
// RUN: autogpu-opt %s --split-input-file -p 'gpu-vectorize{width=2 global_loads=true}' | filecheck %s --check-prefix=GLOBAL

// Four neighbouring loads of a __shared__ array from 4 * tx on: one vector load at the first,
// the array aligned to 16 bytes; the loads of tx * 4 + 4 ... + 7 another.
builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>) -> (), kernel}> ({
    ^bb0(%out: memref<?xf32>):
      %sh = memref.alloca() : memref<64xf32, 3 : i32>
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %f = arith.muli %tx, %c4 : index
      %f1 = arith.addi %f, %c1 : index
      %f2 = arith.addi %f, %c2 : index
      %f3 = arith.addi %f, %c3 : index
      %a = memref.load %sh[%f] : memref<64xf32, 3 : i32>
      %b = memref.load %sh[%f1] : memref<64xf32, 3 : i32>
      %c = memref.load %sh[%f2] : memref<64xf32, 3 : i32>
      %d = memref.load %sh[%f3] : memref<64xf32, 3 : i32>
      %ab = arith.addf %a, %b : f32
      %cd = arith.addf %c, %d : f32
      %s = arith.addf %ab, %cd : f32
      memref.store %s, %out[%tx] : memref<?xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: ^bb0(%out: memref<?xf32>):
// CHECK:      %[[SH:.*]] = memref.alloca() {agpu.align = 16 : i64} : memref<64xf32, 3 : i32>
// CHECK:      %[[F:.*]] = arith.muli %tx, %{{.*}} : index
// CHECK:      %[[A:.*]], %[[B:.*]], %[[C:.*]], %[[D:.*]] = "agpu.vector_load"(%[[SH]], %[[F]]) : (memref<64xf32, 3 : i32>, index) -> (f32, f32, f32, f32)
// CHECK-NOT:  memref.load
// CHECK:      arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT: arith.addf %[[C]], %[[D]] : f32

// TWO-LABEL: ^bb0(%out: memref<?xf32>):
// TWO:       memref.alloca() {agpu.align = 8 : i64}
// TWO:       %[[A:.*]], %[[B:.*]] = "agpu.vector_load"(%{{.*}}, %[[F:.*]]) : {{.*}} -> (f32, f32)
// TWO:       %[[C:.*]], %[[D:.*]] = "agpu.vector_load"(%{{.*}}, %{{.*}}) : {{.*}} -> (f32, f32)

// -----

// Not provably aligned (3 * tx), or a store between: the loads stay scalar; on a parameter
// (global memory) they stay scalar unless global_loads, which tests the address at run time.
builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, f32) -> (), kernel}> ({
    ^bb0(%g: memref<?xf32>, %x: f32):
      %sh = memref.alloca() : memref<64xf32, 3 : i32>
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %f = arith.muli %tx, %c3 : index
      %f1 = arith.addi %f, %c1 : index
      %a = memref.load %sh[%f] : memref<64xf32, 3 : i32>
      %b = memref.load %sh[%f1] : memref<64xf32, 3 : i32>
      %c2 = arith.constant 2 : index
      %e = arith.muli %tx, %c2 : index
      %e1 = arith.addi %e, %c1 : index
      %p = memref.load %sh[%e] : memref<64xf32, 3 : i32>
      memref.store %x, %sh[%c3] : memref<64xf32, 3 : i32>
      %q = memref.load %sh[%e1] : memref<64xf32, 3 : i32>
      %u = memref.load %g[%e] : memref<?xf32>
      %v = memref.load %g[%e1] : memref<?xf32>
      %ab = arith.addf %a, %b : f32
      %pq = arith.addf %p, %q : f32
      %uv = arith.addf %u, %v : f32
      %s = arith.addf %ab, %pq : f32
      %t = arith.addf %s, %uv : f32
      memref.store %t, %g[%tx] : memref<?xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: ^bb0(%g: memref<?xf32>, %x: f32):
// CHECK-NOT:   agpu.vector_load
// CHECK-NOT:   agpu.align
// CHECK:       "gpu.return"

// GLOBAL-LABEL: ^bb0(%g: memref<?xf32>, %x: f32):
// GLOBAL:       %[[E:.*]] = arith.muli %tx, %c2 : index
// GLOBAL:       %[[U:.*]], %[[V:.*]] = "agpu.vector_load"(%g, %[[E]]) <{checked}> : (memref<?xf32>, index) -> (f32, f32)
// GLOBAL:       arith.addf %[[U]], %[[V]] : f32

// -----

// Neighbouring stores of a __shared__ array: one vector store after the last, its values the
// stores' (loads of global memory in between do not separate them).
builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf64>) -> (), kernel}> ({
    ^bb0(%g: memref<?xf64>):
      %sh = memref.alloca() : memref<64xf64, 3 : i32>
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %f = arith.muli %tx, %c2 : index
      %f1 = arith.addi %f, %c1 : index
      %a = memref.load %g[%f] : memref<?xf64>
      memref.store %a, %sh[%f] : memref<64xf64, 3 : i32>
      %b = memref.load %g[%f1] : memref<?xf64>
      memref.store %b, %sh[%f1] : memref<64xf64, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: ^bb0(%g: memref<?xf64>):
// CHECK:       %[[SH:.*]] = memref.alloca() {agpu.align = 16 : i64} : memref<64xf64, 3 : i32>
// CHECK:       %[[F:.*]] = arith.muli %tx, %{{.*}} : index
// CHECK:       %[[A:.*]] = memref.load %g[%[[F]]] : memref<?xf64>
// CHECK-NEXT:  %[[B:.*]] = memref.load %g[%{{.*}}] : memref<?xf64>
// CHECK-NEXT:  "agpu.vector_store"(%[[A]], %[[B]], %[[SH]], %[[F]]) : (f64, f64, memref<64xf64, 3 : i32>, index) -> ()
// CHECK-NOT:   memref.store

// -----

// An element stored twice in the run: the stores stay as they are (moving the first past the
// second would change the element's final value).
builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (f64, f64) -> (), kernel}> ({
    ^bb0(%x: f64, %y: f64):
      %sh = memref.alloca() : memref<64xf64, 3 : i32>
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %f = arith.muli %tx, %c2 : index
      %f1 = arith.addi %f, %c1 : index
      memref.store %x, %sh[%f] : memref<64xf64, 3 : i32>
      memref.store %y, %sh[%f] : memref<64xf64, 3 : i32>
      memref.store %y, %sh[%f1] : memref<64xf64, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: ^bb0(%x: f64, %y: f64):
// CHECK:       memref.store %x, %sh[%f]
// CHECK-NEXT:  memref.store %y, %sh[%f]
// CHECK-NEXT:  memref.store %y, %sh[%f1]
// CHECK-NOT:   agpu.vector_store
