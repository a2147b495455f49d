// RUN: autogpu-opt %s | filecheck %s
// RUN: autogpu-opt %s | autogpu-opt | filecheck %s

void while_loop(int n, int *out) {
  int k = 0;
  while (k * k < n) k++;
  out[0] = k;
}
// CHECK-LABEL: func.func @while_loop(
// CHECK: %k = memref.alloca() : memref<i32>
// CHECK: scf.while () : () -> () {
// CHECK: arith.muli
// CHECK: arith.cmpi slt
// CHECK: scf.condition
// CHECK: } do {
// CHECK: arith.addi
// CHECK: memref.store %{{.*}}, %k[]
// CHECK: scf.yield

// do/while: the body runs in the `before` region, ahead of the condition.
void do_while(int n, int *out) {
  int k = n;
  do {
    k = k / 2;
  } while (k > 1);
  out[0] = k;
}
// CHECK-LABEL: func.func @do_while(
// CHECK: scf.while () : () -> () {
// CHECK: arith.divsi
// CHECK: memref.store
// CHECK: arith.cmpi sgt
// CHECK: scf.condition
// CHECK: } do {
// CHECK-NEXT: scf.yield
