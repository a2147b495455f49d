// RUN: autogpu-opt %s | filecheck %s
// RUN: autogpu-opt %s | autogpu-opt | filecheck %s

// Integer operators: the signedness of the C type picks the op; the usual arithmetic
// conversions pick the type (int op unsigned is unsigned, long op unsigned is long, ...).

void signed_ops(int a, int b, int *out) {
  out[0] = a / b;
  out[1] = a % b;
  out[2] = a >> b;
  out[3] = a << b;
  out[4] = (a & b) | (a ^ b);
  out[5] = -a;
  out[6] = ~a;
  out[7] = +a;
}
// CHECK-LABEL: func.func @signed_ops(
// CHECK: arith.divsi %a, %b : i32
// CHECK: arith.remsi %a, %b : i32
// CHECK: arith.shrsi %a, %b : i32
// CHECK: arith.shli %a, %b overflow<nsw> : i32
// CHECK: %[[AND:.*]] = arith.andi %a, %b : i32
// CHECK: %[[XOR:.*]] = arith.xori %a, %b : i32
// CHECK: arith.ori %[[AND]], %[[XOR]] : i32
// CHECK: arith.subi %c0, %a overflow<nsw> : i32
// CHECK: arith.xori %a, %cm1 : i32

void mixed(int i, unsigned u, long l, unsigned long ul, long *out) {
  out[0] = i / u;
  out[1] = l / u;
  out[2] = i < u;
  out[3] = ul % l;
  out[4] = u >> i;
  out[5] = l << u;
}
// CHECK-LABEL: func.func @mixed(
// int / unsigned: both unsigned (i converted bit for bit)
// CHECK: %[[Q:.*]] = arith.divui %i, %u : i32
// CHECK: arith.extui %[[Q]] : i32 to i64
// long / unsigned: both long (u zero-extended)
// CHECK: %[[UL:.*]] = arith.extui %u : i32 to i64
// CHECK-NEXT: arith.divsi %l, %[[UL]] : i64
// int < unsigned compares unsigned, and the result is an int
// CHECK: %[[LT:.*]] = arith.cmpi ult, %i, %u : i32
// CHECK: %[[LTI:.*]] = arith.extui %[[LT]] : i1 to i32
// CHECK-NEXT: arith.extsi %[[LTI]] : i32 to i64
// unsigned long % long: unsigned long
// CHECK: arith.remui %ul, %l : i64
// a shift has the type of its promoted left operand; the count is converted to it
// CHECK: arith.shrui %u, %i : i32
// CHECK: %[[CNT:.*]] = arith.extui %u : i32 to i64
// CHECK-NEXT: arith.shli %l, %[[CNT]] overflow<nsw> : i64

// Integer constant expressions fold with C's wraparound.
void folding(int *out, long *wide) {
  out[0] = 2147483647 + 1;
  out[1] = -7 / 2;
  out[2] = -7 % 2;
  wide[0] = 1u - 2;
}
// CHECK-LABEL: func.func @folding(
// CHECK: arith.constant -2147483648 : i32
// CHECK: arith.constant -3 : i32
// CHECK: arith.constant -1 : i32
// CHECK: arith.constant 4294967295 : i64
