// RUN: autogpu-opt %s -p convert-agpu-to-gpu | filecheck %s

// conv2d: the pure scalar `int pn = n + t - 1;` computed before the nest is recomputed in the
// kernel from the parameters; the local `float sum` declared in the body stays a local of each
// thread (inside the guard).

func.func @conv2d(%out: memref<?xf32> {agpu.name = "out", agpu.ctype = "float"},
                  %in: memref<?xf32> {agpu.name = "in", agpu.ctype = "float", agpu.const},
                  %tmpl: memref<?xf32> {agpu.name = "tmpl", agpu.ctype = "float", agpu.const},
                  %n: i32 {agpu.name = "n", agpu.ctype = "int"},
                  %m: i32 {agpu.name = "m", agpu.ctype = "int"},
                  %t: i32 {agpu.name = "t", agpu.ctype = "int"}) {
  %0 = arith.addi %n, %t : i32
  %c1 = arith.constant 1 : i32
  %pn = arith.subi %0, %c1 : i32
  %c0 = arith.constant 0 : i32
  agpu.parallel_for %j = %c0 to %m step %c1 : i32 {
    agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
      %1 = arith.constant 0.000000e+00 : f32
      %sum = memref.alloca() : memref<f32>
      memref.store %1, %sum[] : memref<f32>
      scf.for %v = %c0 to %t step %c1 : i32 {
        scf.for %u = %c0 to %t step %c1 : i32 {
          %sum_1 = memref.load %sum[] : memref<f32>
          %2 = arith.addi %i, %u : i32
          %3 = arith.addi %j, %v : i32
          %4 = arith.muli %3, %pn : i32
          %5 = arith.addi %2, %4 : i32
          %6 = arith.index_cast %5 : i32 to index
          %7 = memref.load %in[%6] : memref<?xf32>
          %8 = arith.muli %v, %t : i32
          %9 = arith.addi %u, %8 : i32
          %10 = arith.index_cast %9 : i32 to index
          %11 = memref.load %tmpl[%10] : memref<?xf32>
          %12 = arith.mulf %7, %11 : f32
          %13 = arith.addf %sum_1, %12 : f32
          memref.store %13, %sum[] : memref<f32>
        }
      }
      %sum_2 = memref.load %sum[] : memref<f32>
      %14 = arith.muli %j, %n : i32
      %15 = arith.addi %i, %14 : i32
      %16 = arith.index_cast %15 : i32 to index
      memref.store %sum_2, %out[%16] : memref<?xf32>
    }
  }
  func.return
}

// CHECK: "gpu.func"()
// CHECK-NEXT: ^{{.*}}(%[[OUT:[^:]*]]: memref<?xf32>, %[[IN:[^:]*]]: memref<?xf32>, %[[TMPL:[^:]*]]: memref<?xf32>, %[[N:[^:]*]]: i32, %[[M:[^:]*]]: i32, %[[T:[^:]*]]: i32):
// pn, recomputed from n and t in the prologue
// CHECK-DAG: %[[NT:.*]] = arith.addi %[[N]], %[[T]] : i32
// CHECK-DAG: %[[PN:.*]] = arith.subi %[[NT]], %{{.*}} : i32
// CHECK: scf.for %[[JX:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[J:.*]] = arith.index_cast %[[JX]] : index to i32
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: %[[I:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[SUM:.*]] = memref.alloca() : memref<f32>
// CHECK-NEXT: memref.store %[[ZERO]], %[[SUM]][] : memref<f32>
// CHECK: %[[JV:.*]] = arith.addi %[[J]], %{{.*}} : i32
// CHECK-NEXT: arith.muli %[[JV]], %[[PN]] : i32
// CHECK: memref.load %[[IN]]
// CHECK: memref.load %[[TMPL]]
// CHECK: memref.store %{{.*}}, %[[SUM]][] : memref<f32>
// CHECK: %[[R:.*]] = memref.load %[[SUM]][] : memref<f32>
// CHECK: memref.store %[[R]], %[[OUT]][%{{.*}}] : memref<?xf32>
// CHECK: sym_name = "conv2d_kernel"

// The host computes the grid from n and m only; pn is not needed there.
// CHECK-LABEL: func.func @conv2d(
// CHECK-NOT: arith.subi
// CHECK: "gpu.launch_func"
// CHECK-NEXT: func.return
