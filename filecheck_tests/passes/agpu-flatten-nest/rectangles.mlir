// RUN: autogpu-opt %s --split-input-file -p 'agpu-flatten-nest{min_depth=2}' | filecheck %s
// RUN: autogpu-opt %s --split-input-file -p 'agpu-flatten-nest' | filecheck %s --check-prefix=DEFAULT

// Rectangular nests become one loop over L in [0, total): the trip counts are computed before
// the nest (in i64: the host's launch size), each index recovered by division and remainder,
// innermost fastest. Input: hand-written C-level IR as the frontend makes it of
// `#pragma omp parallel for collapse(n)` (int loops), trimmed.

// Two levels (`min_depth=2`); the default leaves a 2-deep nest to the 3D mapping.
func.func @two(%m: i32, %n: i32, %A: memref<?xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %i = %c0 to %m step %c1 : i32 {
    agpu.parallel_for %j = %c0 to %n step %c1 : i32 {
      %t = arith.muli %i, %n : i32
      %e = arith.addi %t, %j : i32
      %x = arith.index_cast %e : i32 to index
      %v = arith.constant 1.0 : f32
      memref.store %v, %A[%x] : memref<?xf32>
    }
  }
  func.return
}

// CHECK-LABEL: func.func @two(
// CHECK:       %[[Z:.*]] = arith.constant 0 : i64
// CHECK:       %[[M64:.*]] = arith.extsi %m : i32 to i64
// CHECK:       %[[MC:.*]] = arith.maxsi %[[M64]], %[[Z]] : i64
// CHECK:       %[[ONE:.*]] = arith.constant 1 : i64
// CHECK:       %[[N64:.*]] = arith.extsi %n : i32 to i64
// CHECK:       %[[NC:.*]] = arith.maxsi %[[N64]], %[[Z]] : i64
// CHECK:       %[[TOTAL:.*]] = arith.muli %[[MC]], %[[NC]] : i64
// CHECK:       agpu.parallel_for %[[L:.*]] = %[[Z]] to %[[TOTAL]] step %[[ONE]] : i64 {
// The total is known at run time only: 32-bit division where it is at most 2^31 (a branch
// uniform over the grid), 64-bit division otherwise.
// CHECK-NEXT:    %[[LIMIT:.*]] = arith.constant 2147483648 : i64
// CHECK-NEXT:    %[[FITS:.*]] = arith.cmpi sle, %[[TOTAL]], %[[LIMIT]] : i64
// CHECK-NEXT:    %[[QW:.*]], %[[RW:.*]] = scf.if %[[FITS]] -> (i64, i64) {
// CHECK-NEXT:      %[[NC32:.*]] = arith.trunci %[[NC]] : i64 to i32
// CHECK-NEXT:      %[[L32:.*]] = arith.trunci %[[L]] : i64 to i32
// CHECK-NEXT:      %[[Q32:.*]] = arith.divui %[[L32]], %[[NC32]] : i32
// CHECK-NEXT:      %[[QN32:.*]] = arith.muli %[[Q32]], %[[NC32]] {{.*}}: i32
// CHECK-NEXT:      %[[R32:.*]] = arith.subi %[[L32]], %[[QN32]] {{.*}}: i32
// CHECK-NEXT:      %[[QX:.*]] = arith.extui %[[Q32]] : i32 to i64
// CHECK-NEXT:      %[[RX:.*]] = arith.extui %[[R32]] : i32 to i64
// CHECK-NEXT:      scf.yield %[[QX]], %[[RX]] : i64, i64
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[Q:.*]] = arith.divui %[[L]], %[[NC]] : i64
// CHECK-NEXT:      %[[QN:.*]] = arith.muli %[[Q]], %[[NC]] {{.*}}: i64
// CHECK-NEXT:      %[[R:.*]] = arith.subi %[[L]], %[[QN]] {{.*}}: i64
// CHECK-NEXT:      scf.yield %[[Q]], %[[R]] : i64, i64
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[I:.*]] = arith.trunci %[[QW]] : i64 to i32
// CHECK-NEXT:    %[[J:.*]] = arith.trunci %[[RW]] : i64 to i32
// CHECK-NEXT:    %[[T:.*]] = arith.muli %[[I]], %n : i32
// CHECK-NEXT:    arith.addi %[[T]], %[[J]] : i32
// CHECK-NOT:     agpu.parallel_for

// DEFAULT-LABEL: func.func @two(
// DEFAULT:       agpu.parallel_for %i = %c0 to %m step %c1 : i32 {
// DEFAULT-NEXT:    agpu.parallel_for %j = %c0 to %n step %c1 : i32 {

// -----

// Four levels with sizes (m, n, 1, 1) compiled in: the total, 10^6, fits in 32 bits, so L is
// an i32; the levels of one iteration cost nothing (k = l = 0, no division).
func.func @four(%A: memref<?xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %m = arith.constant 1000 : i32
  %n = arith.constant 1000 : i32
  agpu.parallel_for %i = %c0 to %m step %c1 : i32 {
    agpu.parallel_for %j = %c0 to %n step %c1 : i32 {
      agpu.parallel_for %k = %c0 to %c1 step %c1 : i32 {
        agpu.parallel_for %l = %c0 to %c1 step %c1 : i32 {
          %t = arith.muli %i, %n : i32
          %u = arith.addi %t, %j : i32
          %e = arith.addi %u, %k : i32
          %f = arith.addi %e, %l : i32
          %x = arith.index_cast %f : i32 to index
          %v = arith.constant 1.0 : f32
          memref.store %v, %A[%x] : memref<?xf32>
        }
      }
    }
  }
  func.return
}

// CHECK-LABEL: func.func @four(
// CHECK:       %[[TOTAL:.*]] = arith.constant 1000000 : i32
// CHECK-NEXT:  %[[N:.*]] = arith.constant 1000 : i32
// CHECK:       agpu.parallel_for %[[L:.*]] = %{{.*}} to %[[TOTAL]] step %{{.*}} : i32 {
// CHECK:         %[[I:.*]] = arith.divui %[[L]], %[[N]] : i32
// CHECK-NEXT:    %[[IN:.*]] = arith.muli %[[I]], %[[N]] {{.*}}: i32
// CHECK-NEXT:    %[[J:.*]] = arith.subi %[[L]], %[[IN]] {{.*}}: i32
// CHECK-NEXT:    %[[T:.*]] = arith.muli %[[I]], %n : i32
// CHECK-NEXT:    %[[U:.*]] = arith.addi %[[T]], %[[J]] : i32
// CHECK-NEXT:    %[[E:.*]] = arith.addi %[[U]], %c0 : i32
// CHECK-NEXT:    arith.addi %[[E]], %c0 : i32
// CHECK-NOT:     agpu.parallel_for

// DEFAULT-LABEL: func.func @four(
// DEFAULT:       agpu.parallel_for %{{.*}} : i32 {
// DEFAULT-NOT:   agpu.parallel_for

// -----

// Five levels of parameter sizes: a 64-bit index; a strided level with a non-zero start
// (`for (k = 3; k < c; k += 2)`) counts ceil((c - 3) / 2) and takes k = 3 + idx * 2.
func.func @five(%a: i32, %b: i32, %c: i32, %d: i32, %e: i32, %A: memref<?xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  agpu.parallel_for %i = %c0 to %a step %c1 : i32 {
    agpu.parallel_for %j = %c0 to %b step %c1 : i32 {
      agpu.parallel_for %k = %c3 to %c step %c2 : i32 {
        agpu.parallel_for %l = %c0 to %d step %c1 : i32 {
          agpu.parallel_for %p = %c0 to %e step %c1 : i32 {
            %s = arith.addi %i, %j : i32
            %t = arith.addi %s, %k : i32
            %u = arith.addi %t, %l : i32
            %w = arith.addi %u, %p : i32
            %x = arith.index_cast %w : i32 to index
            %v = arith.constant 1.0 : f32
            memref.store %v, %A[%x] : memref<?xf32>
          }
        }
      }
    }
  }
  func.return
}

// CHECK-LABEL: func.func @five(
// CHECK:       %[[C64:.*]] = arith.extsi %c : i32 to i64
// CHECK-NEXT:  %[[SPAN:.*]] = arith.subi %[[C64]], %[[THREE:.*]] : i64
// CHECK-NEXT:  %[[POS:.*]] = arith.maxsi %[[SPAN]], %{{.*}} : i64
// CHECK-NEXT:  %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-NEXT:  %[[KC:.*]] = arith.ceildivsi %[[POS]], %[[TWO]] : i64
// CHECK:       %[[TOTAL:flat_total]] = arith.muli %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:  agpu.parallel_for %[[L:.*]] = %{{.*}} to %[[TOTAL]] step %{{.*}} : i64 {
// CHECK:         scf.if %{{.*}} -> (i64, i64, i64, i64, i64) {
// CHECK-COUNT-4: arith.divui %{{.*}} : i32
// CHECK-NOT:     arith.divui
// CHECK:         } else {
// CHECK-COUNT-4: arith.divui %{{.*}} : i64
// CHECK-NOT:     arith.divui
// CHECK:         %[[K2:.*]] = arith.muli %{{.*}}, %c2 overflow<nsw> : i32
// CHECK-NEXT:    %[[K:.*]] = arith.addi %c3, %[[K2]] overflow<nsw> : i32
// CHECK:         %[[S:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    arith.addi %[[S]], %[[K]] : i32
// CHECK-NOT:     agpu.parallel_for

// DEFAULT-LABEL: func.func @five(
// DEFAULT:       agpu.parallel_for %{{.*}} : i64 {
// DEFAULT-NOT:   agpu.parallel_for
