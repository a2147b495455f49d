// RUN: autogpu-opt %s --split-input-file -p 'agpu-flatten-nest{mode=outer}' | filecheck %s
// RUN: autogpu-opt %s --split-input-file -p 'agpu-flatten-nest{remarks=true}' 2>&1 | filecheck %s --check-prefix=REMARK

// mode=outer merges the levels above the innermost two (for z) and keeps those (for y and x);
// the reductions of the merged levels go to the flat loop, each variable once.
func.func @outer(%a: i32, %b: i32, %c: i32, %d: i32, %e: i32, %A: memref<?xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s = memref.alloca() : memref<f32>
  agpu.parallel_for %i = %c0 to %a step %c1 : i32 reduction(add %s : memref<f32>) {
    agpu.parallel_for %j = %c0 to %b step %c1 : i32 reduction(add %s : memref<f32>) {
      agpu.parallel_for %k = %c0 to %c step %c1 : i32 reduction(add %s : memref<f32>) {
        agpu.parallel_for %l = %c0 to %d step %c1 : i32 reduction(add %s : memref<f32>) {
          agpu.parallel_for %p = %c0 to %e step %c1 : i32 reduction(add %s : memref<f32>) {
            %t = arith.addi %i, %p : i32
            %x = arith.index_cast %t : i32 to index
            %v = memref.load %A[%x] : memref<?xf32>
            %o = memref.load %s[] : memref<f32>
            %n = arith.addf %o, %v : f32
            memref.store %n, %s[] : memref<f32>
          }
        }
      }
    }
  }
  func.return
}

// CHECK-LABEL: func.func @outer(
// CHECK:       %[[S:.*]] = memref.alloca() : memref<f32>
// CHECK:       agpu.parallel_for %[[L:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i64 reduction(add %[[S]] : memref<f32>) {
// CHECK-COUNT-2: arith.divui
// CHECK:         %[[K:.*]] = arith.trunci %{{.*}} : i64 to i32
// CHECK-NOT:     arith.divui
// CHECK:         agpu.parallel_for %[[LL:.*]] = %c0 to %d step %c1 : i32 reduction(add %[[S]] : memref<f32>) {
// CHECK-NEXT:      agpu.parallel_for %[[P:.*]] = %c0 to %e step %c1 : i32 reduction(add %[[S]] : memref<f32>) {
// CHECK-NOT:   agpu.parallel_for


// -----

// A deep nest with an explicit mapping is left alone, with a remark at the loop.
func.func @mapped(%a: i32, %A: memref<?xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %i = %c0 to %a step %c1 : i32 {
    agpu.parallel_for %j = %c0 to %a step %c1 : i32 {
      agpu.parallel_for %k = %c0 to %a step %c1 : i32 mapping x {
        agpu.parallel_for %l = %c0 to %a step %c1 : i32 {
          %x = arith.index_cast %l : i32 to index
          %v = arith.constant 1.0 : f32
          memref.store %v, %A[%x] : memref<?xf32>
        }
      }
    }
  }
  func.return
}

// CHECK-LABEL: func.func @mapped(
// CHECK-COUNT-4: agpu.parallel_for
// REMARK: modes.mlir:[[# @LINE - 16]]:3: remark: agpu-flatten-nest: not flattened: the loop over 'k' is mapped to x explicitly

// -----

// A deep nest whose third level depends on memory: only two levels could merge.
func.func @stops(%a: i32, %len: memref<?xi32>, %A: memref<?xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %i = %c0 to %a step %c1 : i32 {
    agpu.parallel_for %j = %c0 to %a step %c1 : i32 {
      %ix = arith.index_cast %j : i32 to index
      %n = memref.load %len[%ix] : memref<?xi32>
      agpu.parallel_for %k = %c0 to %a step %c1 : i32 {
        agpu.parallel_for %l = %c0 to %a step %c1 : i32 {
          %x = arith.index_cast %l : i32 to index
          %v = arith.constant 1.0 : f32
          memref.store %v, %A[%x] : memref<?xf32>
        }
      }
    }
  }
  func.return
}

// REMARK: modes.mlir:[[# @LINE - 15]]:5: remark: agpu-flatten-nest: not flattened: only 2 levels can merge (the loop over 'j' runs code with effects around the loop over 'k')
