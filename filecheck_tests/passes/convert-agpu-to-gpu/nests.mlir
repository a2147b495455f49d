// RUN: autogpu-opt %s --split-input-file -p convert-agpu-to-gpu | filecheck %s

// A nest of 3: i -> x (threads), j -> y, k -> z (grid-stride loops, z outermost).
func.func @nest3(%A: memref<?xf32>, %l: i32, %m: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %k = %c0 to %l step %c1 : i32 {
    agpu.parallel_for %j = %c0 to %m step %c1 : i32 {
      agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
        %km = arith.muli %k, %m : i32
        %kmj = arith.addi %km, %j : i32
        %kmjn = arith.muli %kmj, %n : i32
        %idx = arith.addi %kmjn, %i : i32
        %ii = arith.index_cast %idx : i32 to index
        %v = arith.constant 1.0 : f32
        memref.store %v, %A[%ii] : memref<?xf32>
      }
    }
  }
  func.return
}

// CHECK: ^{{.*}}(%[[A:[^:]*]]: memref<?xf32>, %[[L:[^:]*]]: i32, %[[M:[^:]*]]: i32, %[[N:[^:]*]]: i32):
// CHECK-NEXT: %[[I_UB:.*]] = arith.index_cast %[[N]] : i32 to index
// CHECK: %[[GID:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[J_UB:.*]] = arith.index_cast %[[M]] : i32 to index
// CHECK-NEXT: %[[BY:.*]] = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
// CHECK-NEXT: %[[GDY:.*]] = "gpu.grid_dim"() <{dimension = #gpu<dim y>}> : () -> index
// CHECK-NEXT: %[[K_UB:.*]] = arith.index_cast %[[L]] : i32 to index
// CHECK-NEXT: %[[BZ:.*]] = "gpu.block_id"() <{dimension = #gpu<dim z>}> : () -> index
// CHECK-NEXT: %[[GDZ:.*]] = "gpu.grid_dim"() <{dimension = #gpu<dim z>}> : () -> index
// CHECK-NEXT: scf.for %[[KX:.*]] = %[[BZ]] to %[[K_UB]] step %[[GDZ]] {
// CHECK-NEXT: %[[K:.*]] = arith.index_cast %[[KX]] : index to i32
// CHECK-NEXT: scf.for %[[JX:.*]] = %[[BY]] to %[[J_UB]] step %[[GDY]] {
// CHECK-NEXT: %[[J:.*]] = arith.index_cast %[[JX]] : index to i32
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt, %[[GID]], %[[I_UB]] : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %[[I:.*]] = arith.index_cast %[[GID]] : index to i32
// CHECK-NEXT: %[[KM:.*]] = arith.muli %[[K]], %[[M]] : i32
// CHECK-NEXT: arith.addi %[[KM]], %[[J]] : i32

// CHECK-LABEL: func.func @nest3(
// CHECK: %[[GX:.*]] = arith.maxsi
// CHECK: %[[GY:.*]] = arith.minsi
// CHECK: %[[GZ:.*]] = arith.minsi
// CHECK-NEXT: "gpu.launch_func"(%[[GX]], %[[GY]], %[[GZ]],

// -----

// A nest of 4: the outermost loop has no GPU dimension left and runs serially in each thread.
// (Each iteration writes its own element of the n^4 array.)
func.func @nest4(%A: memref<?xf32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %l = %c0 to %n step %c1 : i32 {
    agpu.parallel_for %k = %c0 to %n step %c1 : i32 {
      agpu.parallel_for %j = %c0 to %n step %c1 : i32 {
        agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
          %ln = arith.muli %l, %n : i32
          %a = arith.addi %ln, %k : i32
          %an = arith.muli %a, %n : i32
          %b = arith.addi %an, %j : i32
          %bn = arith.muli %b, %n : i32
          %c = arith.addi %bn, %i : i32
          %ii = arith.index_cast %c : i32 to index
          %v = arith.constant 1.0 : f32
          memref.store %v, %A[%ii] : memref<?xf32>
        }
      }
    }
  }
  func.return
}

// CHECK: ^{{.*}}(%[[A:[^:]*]]: memref<?xf32>, %[[N:[^:]*]]: i32):
// CHECK: scf.for %[[KX:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[K:.*]] = arith.index_cast %[[KX]] : index to i32
// CHECK-NEXT: scf.for %[[JX:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[J:.*]] = arith.index_cast %[[JX]] : index to i32
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: %[[I:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK-NEXT: scf.for %[[L:.*]] = %{{.*}} to %[[N]] step %{{.*}} : i32 {
// CHECK-NEXT: %[[LN:.*]] = arith.muli %[[L]], %[[N]] : i32
// CHECK-NEXT: %[[LK:.*]] = arith.addi %[[LN]], %[[K]] : i32
// CHECK-NEXT: %[[LKN:.*]] = arith.muli %[[LK]], %[[N]] : i32
// CHECK-NEXT: %[[LKJ:.*]] = arith.addi %[[LKN]], %[[J]] : i32
// CHECK-NEXT: %[[LKJN:.*]] = arith.muli %[[LKJ]], %[[N]] : i32
// CHECK-NEXT: arith.addi %[[LKJN]], %[[I]] : i32
// CHECK-NOT: agpu.parallel_for

// -----

// `mapping x` on the outer loop: j runs on threads, i on the grid's y.
func.func @mapped(%A: memref<?xf32>, %n: i32, %m: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %j = %c0 to %n step %c1 : i32 mapping x {
    agpu.parallel_for %i = %c0 to %m step %c1 : i32 {
      %jm = arith.muli %j, %m : i32
      %c = arith.addi %jm, %i : i32
      %ii = arith.index_cast %c : i32 to index
      %v = arith.constant 1.0 : f32
      memref.store %v, %A[%ii] : memref<?xf32>
    }
  }
  func.return
}

// CHECK: ^{{.*}}(%[[A:[^:]*]]: memref<?xf32>, %[[N:[^:]*]]: i32, %[[M:[^:]*]]: i32):
// CHECK-NEXT: %[[J_UB:.*]] = arith.index_cast %[[N]] : i32 to index
// CHECK: %[[GID:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[I_UB:.*]] = arith.index_cast %[[M]] : i32 to index
// CHECK-NEXT: %[[BY:.*]] = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
// CHECK-NEXT: %[[GDY:.*]] = "gpu.grid_dim"() <{dimension = #gpu<dim y>}> : () -> index
// CHECK-NEXT: scf.for %[[IX:.*]] = %[[BY]] to %[[I_UB]] step %[[GDY]] {
// CHECK-NEXT: %[[I:.*]] = arith.index_cast %[[IX]] : index to i32
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt, %[[GID]], %[[J_UB]] : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %[[J:.*]] = arith.index_cast %[[GID]] : index to i32

// -----

// A triangular inner loop (bounds depend on j) is not part of the mapped nest: j goes to x and
// i runs serially in each thread.
func.func @triangle(%A: memref<?xf32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %j = %c0 to %n step %c1 : i32 {
    agpu.parallel_for %i = %c0 to %j step %c1 : i32 {
      %jn = arith.muli %j, %n : i32
      %c = arith.addi %jn, %i : i32
      %ii = arith.index_cast %c : i32 to index
      %v = arith.constant 1.0 : f32
      memref.store %v, %A[%ii] : memref<?xf32>
    }
  }
  func.return
}

// CHECK: %[[GID:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt, %[[GID]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %[[J:.*]] = arith.index_cast %[[GID]] : index to i32
// CHECK-NEXT: scf.for %[[I:.*]] = %{{.*}} to %[[J]] step %{{.*}} : i32 {
// CHECK-NOT: gpu.block_id
// CHECK: sym_name = "triangle_kernel", gpu.known_block_size = array<i32: 256, 1, 1>
