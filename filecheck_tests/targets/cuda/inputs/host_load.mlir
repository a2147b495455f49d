builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, i32) -> (), kernel}> ({
    ^bb0(%x: memref<?xf32>, %n: i32):
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
  func.func @f(%x: memref<?xf32> {agpu.name = "x"}, %n: i32 {agpu.name = "n"}) {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %v = memref.load %x[%c0] : memref<?xf32>
    %gi = arith.fptosi %v : f32 to i32
    %g = arith.index_cast %gi : i32 to index
    "gpu.launch_func"(%g, %c1, %c1, %c1, %c1, %c1, %x, %n) <{kernel = @kernels::@k, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 0>}> : (index, index, index, index, index, index, memref<?xf32>, i32) -> ()
    func.return
  }
}
