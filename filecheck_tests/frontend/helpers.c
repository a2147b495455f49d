// RUN: autogpu-opt %s | filecheck %s
// RUN: autogpu-opt %s | autogpu-opt | filecheck %s

// Helper functions are inlined at their calls (autogpu/frontend/inlining.py); a static helper
// is not a kernel of its own, and `static` on a kernel (PolyBench's) is accepted.
static inline float sq(float x) { return x * x; }
static inline int clampi(int v, int lo, int hi) {
  if (v < lo) return lo;
  return v > hi ? hi : v;
}
static float dot(const float *a, const float *b, int n) {
  float s = 0.0f;
  for (int k = 0; k < n; k++)
    s += a[k] * b[k];
  return s;
}
static void scale(float *y, int i, float f) { y[i] = y[i] * f; }

// CHECK-NOT: func.func @sq
// CHECK-NOT: func.func @dot
// CHECK-LABEL: func.func @kernel_helpers(
static void kernel_helpers(int n, int m, const float *a, const float *b, float *y) {
  // The expression helper: its body, each use of the parameter the argument (converted to
  // the parameter's type).
  // CHECK: %[[A:.*]] = memref.load %a[%{{.*}}] : memref<?xf32>
  // CHECK-NEXT: %[[A2:.*]] = memref.load %a[%{{.*}}] : memref<?xf32>
  // CHECK-NEXT: arith.mulf %[[A]], %[[A2]] : f32
  y[0] = sq(a[0]);
  // if (c) return a; return b; is a conditional.
  // CHECK: %[[LT:.*]] = arith.cmpi slt, %m, %{{.*}} : i32
  // CHECK: %[[GT:.*]] = arith.cmpi sgt, %m, %{{.*}} : i32
  // CHECK: arith.select %[[LT]]
  y[1] = clampi(m, 0, 9);
  // A helper with statements: its value computed into a local first, its locals renamed.
  // CHECK: %[[R:.*]] = memref.alloca() : memref<f32>
  // CHECK: %[[S:.*]] = memref.alloca() : memref<f32>
  // CHECK: scf.for %k_dot{{[0-9]+}} =
  // CHECK: memref.store %{{.*}}, %[[R]][] : memref<f32>
  float d = dot(a, b, n);
  // A void helper: its body in place of the call.
  // CHECK: %[[Y:.*]] = memref.load %y[%{{.*}}] : memref<?xf32>
  // CHECK-NEXT: arith.mulf %[[Y]], %{{.*}} : f32
  scale(y, 2, d);
}
