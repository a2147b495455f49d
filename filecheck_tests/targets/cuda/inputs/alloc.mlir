builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
    ^bb0():
      %buf = memref.alloc() : memref<4xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "heap"} : () -> ()
  }) : () -> ()
}
