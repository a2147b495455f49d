// RUN: autogpu-opt %s | filecheck %s
// RUN: autogpu-opt %s | autogpu-opt | filecheck %s

// C's + - * << on a signed type carry overflow<nsw> (overflow is undefined in C); on an
// unsigned type they wrap, as the flagless op does (docs/ir.md, "Integer overflow").

void ops(int a, unsigned b, long c, unsigned long d, int *x) {
  x[0] = a + 1;
  x[1] = (int)(b + 1u);
  x[2] = (int)(c * 3);
  x[3] = (int)(d * 3u);
  x[4] = a << 2;
  x[5] = (int)(b << 2);
  x[6] = -a;
  x[7] = (int)(b - 2u);
}
// CHECK-LABEL: func.func @ops(
// CHECK: %[[A1:.*]] = arith.addi %a, %{{c[0-9]+}} overflow<nsw> : i32
// CHECK: %[[B1:.*]] = arith.addi %b, %{{c[0-9_]+}} : i32
// CHECK: %[[C3:.*]] = arith.muli %c, %{{c[0-9_]+}} overflow<nsw> : i64
// CHECK: %[[D3:.*]] = arith.muli %d, %{{c[0-9_]+}} : i64
// CHECK: %[[AS:.*]] = arith.shli %a, %{{c[0-9_]+}} overflow<nsw> : i32
// CHECK: %[[BS:.*]] = arith.shli %b, %{{c[0-9_]+}} : i32
// CHECK: %[[NEG:.*]] = arith.subi %{{c[0-9_]+}}, %a overflow<nsw> : i32
// CHECK: %[[B2:.*]] = arith.subi %b, %{{c[0-9_]+}} : i32

// Compound assignments and increments of signed variables too; the frontend's own loop
// arithmetic (the trip count and counter of a decreasing loop) wraps.
void loops(int n, int s, float *y) {
  int t = 0;
  for (int i = n; i > 0; i -= s) {
    t += s;
    t++;
    y[i] = (float)t;
  }
}
// CHECK-LABEL: func.func @loops(
// CHECK: %[[DIFF:.*]] = arith.subi %n, %{{c[0-9_]+}} : i32
// CHECK-NEXT: %[[BUMP:.*]] = arith.addi %[[DIFF]], %s : i32
// CHECK: scf.for %i_k =
// CHECK: %[[OFF:.*]] = arith.muli %i_k, %s : i32
// CHECK-NEXT: %i = arith.subi %n, %[[OFF]] : i32
// CHECK: arith.addi %{{.*}}, %s overflow<nsw> : i32
// CHECK: arith.addi %{{.*}}, %{{c[0-9_]+}} overflow<nsw> : i32
