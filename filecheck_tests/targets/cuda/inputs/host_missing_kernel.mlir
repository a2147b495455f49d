builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, i32) -> (), kernel}> ({
    ^bb0(%x: memref<?xf32>, %n: i32):
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
  func.func @f(%x: memref<?xf32> {agpu.name = "x"}, %n: i32 {agpu.name = "n"}) {
    %c1 = arith.constant 1 : index
    %g = arith.constant 1 : index
    "gpu.launch_func"(%g, %c1, %c1, %c1, %c1, %c1, %x, %n) <{kernel = @kernels::@missing, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 0>}> : (index, index, index, index, index, index, memref<?xf32>, i32) -> ()
    func.return
  }
}
