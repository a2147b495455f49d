builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>) -> (), kernel}> ({
    ^bb0(%a: memref<?xf32>):
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %v = memref.subview %a[%c0] [%c2] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}
