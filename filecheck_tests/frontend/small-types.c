// RUN: autogpu-opt %s | filecheck %s
// RUN: autogpu-opt %s | autogpu-opt | filecheck %s

// char, short and _Bool (and the <stdint.h>/<stdbool.h> names, with or without their
// #include): C's integer promotions take each operand to int before arithmetic, and a store
// converts back (trunci: modulo 2^8 or 2^16, gcc's choice for signed narrowing); plain char is
// signed, as on x86-64 gcc; (_Bool)x is x != 0.
#include <stdint.h>

void promote(int n, signed char *c, unsigned char *u, short *s, unsigned short *us) {
  c[0] = c[0] * 3;
  u[0] = u[0] + u[1];
  s[0] = s[0] >> 1;
  us[0] = -us[0];
}
// CHECK-LABEL: func.func @promote(
// CHECK-SAME:    %c: memref<?xi8> {agpu.name = "c", agpu.ctype = "signed char"}
// CHECK-SAME:    %u: memref<?xi8> {agpu.name = "u", agpu.ctype = "unsigned char"}
// CHECK-SAME:    %s: memref<?xi16> {agpu.name = "s", agpu.ctype = "short"}
// CHECK-SAME:    %us: memref<?xi16> {agpu.name = "us", agpu.ctype = "unsigned short"}
// CHECK:         %[[C:.*]] = memref.load %c[{{.*}}] : memref<?xi8>
// CHECK-NEXT:    %[[CI:.*]] = arith.extsi %[[C]] : i8 to i32
// CHECK-NEXT:    %[[CM:.*]] = arith.muli %[[CI]], %{{.*}} overflow<nsw> : i32
// CHECK-NEXT:    %[[CT:.*]] = arith.trunci %[[CM]] : i32 to i8
// CHECK-NEXT:    memref.store %[[CT]], %c[{{.*}}] : memref<?xi8>
// CHECK:         %[[U0:.*]] = memref.load %u[{{.*}}] : memref<?xi8>
// CHECK:         %[[U1:.*]] = memref.load %u[{{.*}}] : memref<?xi8>
// CHECK-NEXT:    %[[U0I:.*]] = arith.extui %[[U0]] : i8 to i32
// CHECK-NEXT:    %[[U1I:.*]] = arith.extui %[[U1]] : i8 to i32
// CHECK-NEXT:    %[[SUM:.*]] = arith.addi %[[U0I]], %[[U1I]] overflow<nsw> : i32
// CHECK-NEXT:    %[[UT:.*]] = arith.trunci %[[SUM]] : i32 to i8
// CHECK-NEXT:    memref.store %[[UT]], %u[{{.*}}] : memref<?xi8>
// CHECK:         %[[S:.*]] = memref.load %s[{{.*}}] : memref<?xi16>
// CHECK-NEXT:    %[[SI:.*]] = arith.extsi %[[S]] : i16 to i32
// CHECK-NEXT:    %[[SH:.*]] = arith.shrsi %[[SI]], %{{.*}} : i32
// CHECK-NEXT:    arith.trunci %[[SH]] : i32 to i16
// CHECK:         %[[US:.*]] = memref.load %us[{{.*}}] : memref<?xi16>
// CHECK-NEXT:    %[[USI:.*]] = arith.extui %[[US]] : i16 to i32
// CHECK-NEXT:    %[[NEG:.*]] = arith.subi %{{.*}}, %[[USI]] overflow<nsw> : i32
// CHECK-NEXT:    arith.trunci %[[NEG]] : i32 to i16

void names(char x, uint8_t y, int8_t z, bool b, size_t k, int16_t *out) {
  out[0] = x + y + z + b + (k == 0) + true;
}
// CHECK-LABEL: func.func @names(
// CHECK-SAME:    %x: i8 {agpu.name = "x", agpu.ctype = "char"}
// CHECK-SAME:    %y: i8 {agpu.name = "y", agpu.ctype = "uint8_t"}
// CHECK-SAME:    %z: i8 {agpu.name = "z", agpu.ctype = "int8_t"}
// CHECK-SAME:    %b: i1 {agpu.name = "b", agpu.ctype = "_Bool"}
// CHECK-SAME:    %k: i64 {agpu.name = "k", agpu.ctype = "size_t"}
// CHECK-SAME:    %out: memref<?xi16> {agpu.name = "out", agpu.ctype = "int16_t"}
// CHECK:         arith.extsi %x : i8 to i32
// CHECK:         arith.extui %y : i8 to i32
// CHECK:         arith.extsi %z : i8 to i32
// CHECK:         arith.extui %b : i1 to i32

void to_bool(int n, int i, float f, bool *m) {
  m[0] = i;
  m[1] = f;
  m[2] = 256;
  m[3] = (_Bool)0.5;
  m[4] = false;
}
// CHECK-LABEL: func.func @to_bool(
// CHECK-DAG:     %[[TRUE:.*]] = arith.constant true
// CHECK-DAG:     %[[FALSE:.*]] = arith.constant false
// CHECK:         %[[I:.*]] = arith.cmpi ne, %i, %{{.*}} : i32
// CHECK-NEXT:    memref.store %[[I]], %m[{{.*}}] : memref<?xi1>
// CHECK:         %[[F:.*]] = arith.cmpf une, %f, %{{.*}} : f32
// CHECK-NEXT:    memref.store %[[F]], %m[{{.*}}] : memref<?xi1>
// CHECK:         memref.store %[[TRUE]], %m[{{.*}}] : memref<?xi1>
// CHECK:         memref.store %[[TRUE]], %m[{{.*}}] : memref<?xi1>
// CHECK:         memref.store %[[FALSE]], %m[{{.*}}] : memref<?xi1>

// A reduction over an unsigned char keeps its kind; over a _Bool, OpenMP's combiner on 0/1
// values is bitwise: `+` is `or`, `min` is `and`.
void reductions(int n, const unsigned char *x, const bool *y, unsigned char *out, bool *any) {
  unsigned char s = 0;
  bool seen = false;
  bool all = true;
#pragma omp parallel for reduction(+: s) reduction(+: seen) reduction(min: all)
  for (int i = 0; i < n; i++) {
    s += x[i];
    seen += y[i];
    all = y[i] < all ? y[i] : all;
  }
  out[0] = s;
  any[0] = seen && all;
}
// CHECK-LABEL: func.func @reductions(
// CHECK:         agpu.parallel_for %i = {{.*}} reduction(add %s : memref<i8>, or %seen : memref<i1>, and %all : memref<i1>)
