// RUN: autogpu-opt %s | filecheck %s
// RUN: autogpu-opt %s | autogpu-opt | filecheck %s

// Every assignment operator, on variables (slots) and array elements: computed in C's type
// for `target op value`, converted back to the target's type.

void compound(int n, int *a, float *f) {
  int x = 1;
  x += n;
  x -= 2;
  x *= 3;
  x /= 4;
  x %= 5;
  x <<= 1;
  x >>= 1;
  x &= 6;
  x |= 7;
  x ^= 8;
  a[n] += x;
  f[0] *= 0.5;
  x++;
  ++x;
  x--;
  --x;
  a[1]++;
  f[2]--;
}
// CHECK-LABEL: func.func @compound(
// CHECK: %x = memref.alloca() : memref<i32>
// CHECK: arith.addi
// CHECK: arith.subi
// CHECK: arith.muli
// CHECK: arith.divsi
// CHECK: arith.remsi
// CHECK: arith.shli
// CHECK: arith.shrsi
// CHECK: arith.andi
// CHECK: arith.ori
// CHECK: arith.xori
// a[n] += x loads and stores the same element, indexed once:
// CHECK: %[[IDX:.*]] = arith.index_cast %n : i32 to index
// CHECK-NEXT: %[[OLD:.*]] = memref.load %a[%[[IDX]]] : memref<?xi32>
// CHECK-NEXT: %[[X:.*]] = memref.load %x[] : memref<i32>
// CHECK-NEXT: %[[NEW:.*]] = arith.addi %[[OLD]], %[[X]] overflow<nsw> : i32
// CHECK-NEXT: memref.store %[[NEW]], %a[%[[IDX]]] : memref<?xi32>
// f[0] *= 0.5 computes in double (0.5 is a double), then stores a float:
// CHECK: %[[F:.*]] = memref.load %f
// CHECK: %[[FD:.*]] = arith.extf %[[F]] : f32 to f64
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[FD]], %{{.*}} : f64
// CHECK-NEXT: %[[PF:.*]] = arith.truncf %[[P]] : f64 to f32
// CHECK-NEXT: memref.store %[[PF]], %f
// x++, ++x, x--, --x:
// CHECK-COUNT-2: arith.addi %{{.*}}, %c1
// CHECK-COUNT-2: arith.subi %{{.*}}, %c1
// CHECK: memref.load %a
// CHECK-NEXT: arith.addi
// CHECK-NEXT: memref.store
// f[2]-- on a float subtracts 1.0f:
// CHECK: arith.subf %{{.*}}, %{{.*}} : f32

// Unsigned targets use the unsigned operators.
void unsigned_ops(unsigned u, unsigned *out) {
  unsigned v = u;
  v /= 3;
  v %= 7;
  v >>= 2;
  out[0] = v;
}
// CHECK-LABEL: func.func @unsigned_ops(
// CHECK: arith.divui
// CHECK: arith.remui
// CHECK: arith.shrui

// An int target of a float computation truncates toward zero (fptosi).
void int_target(int *out, float f) {
  int x = 1;
  x += f;
  out[0] = x;
}
// CHECK-LABEL: func.func @int_target(
// CHECK: %[[XF:.*]] = arith.sitofp %{{.*}} : i32 to f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[XF]], %f : f32
// CHECK-NEXT: %[[I:.*]] = arith.fptosi %[[S]] : f32 to i32
// CHECK-NEXT: memref.store %[[I]], %x[]
