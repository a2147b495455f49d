// RUN: autogpu-opt %s -p convert-agpu-to-gpu | filecheck %s
// RUN: autogpu-opt %s -p convert-agpu-to-gpu -t cuda | head -n 1 | filecheck %s --check-prefix=LAUNCH

// Serial control flow around parallel loops stays on the host (docs/ir.md, "Host control"):
// the host function keeps the scf.for / scf.if with the launches inside, computes their bounds
// and conditions from the scalar parameters, and passes the loop counter to the kernels that
// use it, after the C parameters. The launch description prints it as `steps`.

// A time loop of two sweeps (jacobi-1d): 2 launches per iteration, kernels without the counter.
func.func @sweeps(%tsteps: i32 {agpu.name = "tsteps", agpu.ctype = "int"},
                  %n: i32 {agpu.name = "n", agpu.ctype = "int"},
                  %A: memref<?xf64> {agpu.name = "A", agpu.ctype = "double"},
                  %B: memref<?xf64> {agpu.name = "B", agpu.ctype = "double"}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %t = %c0 to %tsteps step %c1 : i32 {
    %ub = arith.subi %n, %c1 overflow<nsw> : i32
    agpu.parallel_for %i = %c1 to %ub step %c1 : i32 {
      %ii = arith.index_cast %i : i32 to index
      %a = memref.load %A[%ii] : memref<?xf64>
      memref.store %a, %B[%ii] : memref<?xf64>
    }
    agpu.parallel_for %j = %c1 to %ub step %c1 : i32 {
      %jj = arith.index_cast %j : i32 to index
      %b = memref.load %B[%jj] : memref<?xf64>
      memref.store %b, %A[%jj] : memref<?xf64>
    }
  }
  func.return
}

// CHECK-LABEL: "gpu.func"() <{function_type = (i32, i32, memref<?xf64>, memref<?xf64>) -> (), kernel}>
// CHECK:       sym_name = "sweeps_kernel0"
// CHECK:       sym_name = "sweeps_kernel1"

// CHECK-LABEL: "gpu.func"() <{function_type = (i32, i32, memref<?xf64>, memref<?xf64>, i32) -> (), kernel}>
// CHECK-NEXT:  ^bb0(%{{.*}}: i32, %{{.*}}: i32, %{{.*}}: memref<?xf64>, %{{.*}}: memref<?xf64>, %[[FLAG_T:.*]]: i32):
// CHECK:       scf.if %[[ODD:.*]] {
// CHECK:         %[[TT:.*]] = arith.index_cast %[[FLAG_T]] : i32 to index
// CHECK:         memref.store %{{.*}}, %{{.*}}[%[[TT]]]
// CHECK:       sym_name = "parity_kernel", {{.*}} arg_attrs = [{{.*}}, {agpu.name = "t", agpu.ctype = "int"}]

// CHECK-LABEL: "gpu.func"() <{function_type = (i32, i32, memref<?xf64>, memref<?xf64>, memref<?xf64>) -> (), kernel}>
// CHECK:       sym_name = "coefficient_kernel0"
// CHECK:       sym_name = "coefficient_kernel1"
// CHECK:       ^bb0(%{{.*}}: i32, %{{.*}}: i32, %{{.*}}: memref<?xf64>, %{{.*}}: memref<?xf64>, %{{.*}}: memref<?xf64>, %[[COEF_T:.*]]: i32):
// CHECK:       %[[NEXT:.*]] = arith.addi %[[COEF_T]], %{{.*}} overflow<nsw> : i32
// CHECK:       arith.sitofp %[[NEXT]] : i32 to f64
// CHECK:       sym_name = "coefficient_kernel2"

// The host: the loop, both launches in its body, grids computed inside it.
// CHECK-LABEL: func.func @sweeps(
// CHECK-SAME:    %[[TSTEPS:[^:]*]]: i32 {{.*}}, %[[N:[^:]*]]: i32 {{.*}}, %[[A:[^:]*]]: memref<?xf64> {{.*}}, %[[B:[^:]*]]: memref<?xf64>
// CHECK:         scf.for %[[T:.*]] = %{{.*}} to %[[TSTEPS]] step %{{.*}} : i32 {
// CHECK:           "gpu.launch_func"({{.*}}, %[[TSTEPS]], %[[N]], %[[A]], %[[B]]) <{kernel = @kernels::@sweeps_kernel0
// CHECK:           "gpu.launch_func"({{.*}}, %[[TSTEPS]], %[[N]], %[[A]], %[[B]]) <{kernel = @kernels::@sweeps_kernel1
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// An `if (t % 2)` in the time loop: computed on the host; the kernel takes t for its body.
func.func @parity(%tsteps: i32 {agpu.name = "tsteps", agpu.ctype = "int"},
                  %n: i32 {agpu.name = "n", agpu.ctype = "int"},
                  %A: memref<?xf64> {agpu.name = "A", agpu.ctype = "double"},
                  %B: memref<?xf64> {agpu.name = "B", agpu.ctype = "double"}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  scf.for %t = %c0 to %tsteps step %c1 : i32 {
    %r = arith.remsi %t, %c2 : i32
    %odd = arith.cmpi ne, %r, %c0 : i32
    scf.if %odd {
      agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
        %ii = arith.index_cast %i : i32 to index
        %a = memref.load %A[%ii] : memref<?xf64>
        %tt = arith.index_cast %t : i32 to index
        memref.store %a, %B[%tt] : memref<?xf64>
      }
    }
  }
  func.return
}

// CHECK-LABEL: func.func @parity(
// CHECK-SAME:    %[[P_TSTEPS:[^:]*]]: i32 {{.*}}, %[[P_N:[^:]*]]: i32 {{.*}}, %[[P_A:[^:]*]]: memref<?xf64> {{.*}}, %[[P_B:[^:]*]]: memref<?xf64>
// CHECK:         scf.for %[[P_T:.*]] = %{{.*}} to %[[P_TSTEPS]] step %{{.*}} : i32 {
// CHECK:           %[[REM:.*]] = arith.remsi %[[P_T]], %{{.*}} : i32
// CHECK-NEXT:      %[[COND:.*]] = arith.cmpi ne, %[[REM]], %{{.*}} : i32
// CHECK-NEXT:      scf.if %[[COND]] {
// CHECK:             "gpu.launch_func"({{.*}}, %[[P_TSTEPS]], %[[P_N]], %[[P_A]], %[[P_B]], %[[P_T]]) <{kernel = @kernels::@parity_kernel
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// `t + 1` computed in the time loop and used by the second nest: recomputed in its kernel from
// t; a serial statement between the nests is a <<<1,1>>> kernel launched in the loop.
func.func @coefficient(%tsteps: i32 {agpu.name = "tsteps", agpu.ctype = "int"},
                       %n: i32 {agpu.name = "n", agpu.ctype = "int"},
                       %A: memref<?xf64> {agpu.name = "A", agpu.ctype = "double"},
                       %B: memref<?xf64> {agpu.name = "B", agpu.ctype = "double"},
                       %s: memref<?xf64> {agpu.name = "s", agpu.ctype = "double"}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0 : index
  scf.for %t = %c0 to %tsteps step %c1 : i32 {
    %next = arith.addi %t, %c1 overflow<nsw> : i32
    %coef = arith.sitofp %next : i32 to f64
    agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
      %ii = arith.index_cast %i : i32 to index
      %a = memref.load %A[%ii] : memref<?xf64>
      memref.store %a, %B[%ii] : memref<?xf64>
    }
    %s0 = memref.load %s[%z] : memref<?xf64>
    %b0 = memref.load %B[%z] : memref<?xf64>
    %sum = arith.addf %s0, %b0 : f64
    memref.store %sum, %s[%z] : memref<?xf64>
    agpu.parallel_for %j = %c0 to %n step %c1 : i32 {
      %jj = arith.index_cast %j : i32 to index
      %b = memref.load %B[%jj] : memref<?xf64>
      %m = arith.mulf %b, %coef : f64
      memref.store %m, %A[%jj] : memref<?xf64>
    }
  }
  func.return
}

// CHECK-LABEL: func.func @coefficient(
// CHECK:         scf.for %[[C_T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK:           "gpu.launch_func"({{.*}}) <{kernel = @kernels::@coefficient_kernel0
// CHECK:           "gpu.launch_func"(%[[ONE:.*]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], {{.*}}) <{kernel = @kernels::@coefficient_kernel1
// CHECK:           "gpu.launch_func"({{.*}}, %[[C_T]]) <{kernel = @kernels::@coefficient_kernel2
// CHECK-NEXT:    }

// LAUNCH:      "name": "sweeps"
// LAUNCH-SAME: "launches": [{"kernel": "sweeps_kernel0", "grid": ["max((n - 1 - 1 + 255) / 256, 1)", "1", "1"], "block": ["256", "1", "1"], "args": ["tsteps", "n", "A", "B"]
// LAUNCH-SAME: {"kernel": "sweeps_kernel1", "grid": ["max((n - 1 - 1 + 255) / 256, 1)", "1", "1"], "block": ["256", "1", "1"], "args": ["tsteps", "n", "A", "B"]
// LAUNCH-SAME: "steps": [{"for": {"var": "t", "ctype": "int", "lb": "0", "ub": "tsteps", "step": "1", "body": [{"launch": 0}, {"launch": 1}]}}]
// LAUNCH-SAME: "name": "parity"
// LAUNCH-SAME: "args": ["tsteps", "n", "A", "B", "t"]
// LAUNCH-SAME: "steps": [{"for": {"var": "t", "ctype": "int", "lb": "0", "ub": "tsteps", "step": "1", "body": [{"if": {"cond": "t % 2 != 0", "then": [{"launch": 0}], "else": []}}]}}]
// LAUNCH-SAME: "name": "coefficient"
// LAUNCH-SAME: {"kernel": "coefficient_kernel1", "grid": ["1", "1", "1"], "block": ["1", "1", "1"], "args": ["tsteps", "n", "A", "B", "s"]
// LAUNCH-SAME: {"kernel": "coefficient_kernel2", "grid": ["max((n + 255) / 256, 1)", "1", "1"], "block": ["256", "1", "1"], "args": ["tsteps", "n", "A", "B", "s", "t"]
// LAUNCH-SAME: "steps": [{"for": {"var": "t", "ctype": "int", "lb": "0", "ub": "tsteps", "step": "1", "body": [{"launch": 0}, {"launch": 1}, {"launch": 2}]}}]
