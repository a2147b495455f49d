// RUN: autogpu-opt %s -p convert-agpu-to-gpu | filecheck %s
// RUN: autogpu-opt %s -p convert-agpu-to-gpu -t cuda | head -n 1 | filecheck %s --check-prefix=LAUNCH

// Data-dependent host control (docs/ir.md, "Host control around kernels"): a condition that
// reads memory or computes in floating point is computed by the serial kernel of the code
// before it, stored in a device variable, and read back by the host (memref.get_global of
// @kernels and memref.load in the host function; a `read` step of the launch description).

// A convergence loop: `while (diff > tol) { diff = 0; nest with reduction(max: diff) }`.
func.func @converge(%n: i32 {agpu.name = "n", agpu.ctype = "int"},
                    %tol: f32 {agpu.name = "tol", agpu.ctype = "float"},
                    %a: memref<?xf32> {agpu.name = "a", agpu.ctype = "float"}) {
  %big = arith.constant 1.000000e+09 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %c0 = arith.constant 0 : i32
  %diff = memref.alloca() : memref<f32>
  memref.store %big, %diff[] : memref<f32>
  scf.while () : () -> () {
    %d = memref.load %diff[] : memref<f32>
    %more = arith.cmpf ogt, %d, %tol : f32
    scf.condition(%more)
  } do {
    memref.store %zero, %diff[] : memref<f32>
    %c1 = arith.constant 1 : i32
    agpu.parallel_for %i = %c0 to %n step %c1 : i32 reduction(max %diff : memref<f32>) {
      %ii = arith.index_cast %i : i32 to index
      %x = memref.load %a[%ii] : memref<?xf32>
      %h = arith.mulf %x, %x : f32
      memref.store %h, %a[%ii] : memref<?xf32>
      %old = memref.load %diff[] : memref<f32>
      %new = arith.maximumf %old, %h : f32
      memref.store %new, %diff[] : memref<f32>
    }
    scf.yield
  }
  func.return
}
// CHECK-LABEL: "gpu.func"() <{function_type = (i32, f32, memref<?xf32>) -> (), kernel}>
// CHECK:         %[[CELL:.*]] = memref.get_global @converge_more : memref<i1>
// CHECK:         memref.store %{{.*}}, %[[CELL]][] : memref<i1>
// CHECK:       sym_name = "converge_kernel1"

// CHECK-LABEL: func.func @converge(
// CHECK:         "gpu.launch_func"({{.*}}) <{kernel = @kernels::@converge_kernel0
// CHECK-NEXT:    scf.while () : () -> () {
// CHECK-NEXT:      "gpu.launch_func"({{.*}}) <{kernel = @kernels::@converge_kernel1
// CHECK-NEXT:      %[[GLOBAL:.*]] = memref.get_global @kernels::@converge_more : memref<i1>
// CHECK-NEXT:      %[[COND:.*]] = memref.load %[[GLOBAL]][] : memref<i1>
// CHECK-NEXT:      scf.condition(%[[COND]])
// CHECK-NEXT:    } do {
// CHECK-NEXT:      "gpu.launch_func"({{.*}}) <{kernel = @kernels::@converge_kernel2
// CHECK:           "gpu.launch_func"({{.*}}) <{kernel = @kernels::@converge_kernel3
// CHECK-NEXT:      scf.yield

// LAUNCH: "steps": [{"launch": 0}, {"while": {"before": [{"launch": 1}, {"read": {"var": "more", "global": "converge_more", "ctype": "bool"}}], "cond": "more", "body": [{"launch": 2}, {"launch": 3}]}}]


// An `if` on an array element inside a time loop: read back in each step.
func.func @element_if(%tsteps: i32 {agpu.name = "tsteps", agpu.ctype = "int"},
                      %n: i32 {agpu.name = "n", agpu.ctype = "int"},
                      %x: memref<?xf32> {agpu.name = "x", agpu.ctype = "float"}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant 0.000000e+00 : f32
  %first = arith.constant 0 : index
  scf.for %t = %c0 to %tsteps step %c1 : i32 {
    %x0 = memref.load %x[%first] : memref<?xf32>
    %positive = arith.cmpf ogt, %x0, %zero : f32
    scf.if %positive {
      agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
        %ii = arith.index_cast %i : i32 to index
        %v = memref.load %x[%ii] : memref<?xf32>
        %w = arith.subf %v, %v : f32
        memref.store %w, %x[%ii] : memref<?xf32>
      }
    }
  }
  func.return
}
// CHECK-LABEL: func.func @element_if(
// CHECK:         scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK:           "gpu.launch_func"({{.*}}) <{kernel = @kernels::@element_if_kernel0
// CHECK-NEXT:      %[[CELL:.*]] = memref.get_global @kernels::@element_if_positive : memref<i1>
// CHECK-NEXT:      %[[POSITIVE:.*]] = memref.load %[[CELL]][] : memref<i1>
// CHECK-NEXT:      scf.if %[[POSITIVE]] {
// CHECK:             "gpu.launch_func"({{.*}}) <{kernel = @kernels::@element_if_kernel1

// LAUNCH: "steps": [{"for": {"var": "t", "ctype": "int", "lb": "0", "ub": "tsteps", "step": "1", "body": [{"launch": 0}, {"read": {"var": "positive", "global": "element_if_positive", "ctype": "bool"}}, {"if": {"cond": "positive", "then": [{"launch": 1}], "else": []}}]}}]
