// RUN: autogpu-opt %s -p canonicalize | filecheck %s
// RUN: autogpu-opt %s -p cse | filecheck %s --check-prefix=CSE

// canonicalize moves constants to the right of a commutative op and keeps its overflow<nsw>
// (xDSL's own pattern rebuilt the op without it); cse never merges an op with nsw and one
// without: their properties differ.

func.func @flags(%a: i32, %out: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : i32
  %s = arith.addi %c7, %a overflow<nsw> : i32
  memref.store %s, %out[%c0] : memref<?xi32>
  %m = arith.muli %c7, %a : i32
  memref.store %m, %out[%c0] : memref<?xi32>
  %w = arith.addi %a, %c7 : i32
  memref.store %w, %out[%c1] : memref<?xi32>
  %w2 = arith.addi %a, %c7 overflow<nsw> : i32
  memref.store %w2, %out[%c1] : memref<?xi32>
  func.return
}

// CHECK-LABEL: func.func @flags(
// CHECK:         %[[S:.*]] = arith.addi %a, %c7 overflow<nsw> : i32
// CHECK-NEXT:    memref.store %[[S]], %out[%c0]
// CHECK-NEXT:    %[[M:.*]] = arith.muli %a, %c7 : i32
// CHECK-NEXT:    memref.store %[[M]], %out[%c0]

// CSE-LABEL: func.func @flags(
// CSE:         %[[W:.*]] = arith.addi %a, %c7 : i32
// CSE-NEXT:    memref.store %[[W]], %out[%c1]
// CSE-NEXT:    %[[W2:.*]] = arith.addi %a, %c7 overflow<nsw> : i32
// CSE-NEXT:    memref.store %[[W2]], %out[%c1]
