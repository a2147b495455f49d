// RUN: autogpu-opt %s | filecheck %s
// RUN: autogpu-opt %s | autogpu-opt | filecheck %s
// A parallel loop on an `unsigned char` whose bound (an `unsigned char`) keeps it in range:
// it counts in `int`, where C compares it with the bound, and the body sees it truncated.
// An `unsigned short` `!=` loop wraps: `(bound - start + 2^16) % 2^16` iterations.

void bytes(unsigned char n, int *a) {
#pragma omp parallel for
  for (unsigned char i = 0; i < n; i++)
    a[i] = i * 3;
}
// CHECK-LABEL: func.func @bytes(
// CHECK:         %[[C0:.*]] = arith.constant 0 : i32
// CHECK:         %[[C1:.*]] = arith.constant 1 : i32
// CHECK:         %[[N:.*]] = arith.extui %n : i8 to i32
// CHECK-NEXT:    agpu.parallel_for %[[W:.*]] = %[[C0]] to %[[N]] step %[[C1]] : i32 {
// CHECK:           %[[I:.*]] = arith.trunci %[[W]] : i32 to i8
// CHECK-NEXT:      %{{.*}} = arith.extui %[[I]] : i8 to i32

void wraps(unsigned short w, int *d) {
#pragma omp parallel for
  for (unsigned short u = w; u != 3; u++)
    d[u] = u;
}
// CHECK-LABEL: func.func @wraps(
// CHECK:         %[[M:.*]] = arith.constant 65536 : i32
// CHECK:         %[[START:.*]] = arith.extui %w : i16 to i32
// CHECK-NEXT:    %[[D:.*]] = arith.subi %{{.*}}, %[[START]] overflow<nsw> : i32
// CHECK-NEXT:    %[[P:.*]] = arith.addi %[[D]], %[[M]] overflow<nsw> : i32
// CHECK-NEXT:    %[[SPAN:.*]] = arith.remsi %[[P]], %[[M]] : i32
// CHECK-NEXT:    %[[SPAN64:.*]] = arith.extsi %[[SPAN]] : i32 to i64
// CHECK-NEXT:    %[[LB:.*]] = arith.extui %w : i16 to i32
// CHECK-NEXT:    %[[SPAN32:.*]] = arith.trunci %[[SPAN64]] : i64 to i32
// CHECK-NEXT:    %[[UB:.*]] = arith.addi %[[LB]], %[[SPAN32]] : i32
// CHECK-NEXT:    agpu.parallel_for %[[W:.*]] = %[[LB]] to %[[UB]] step %{{.*}} : i32 {
// CHECK-NEXT:      %{{.*}} = arith.trunci %[[W]] : i32 to i16
