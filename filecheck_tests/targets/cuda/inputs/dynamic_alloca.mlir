builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (index) -> (), kernel}> ({
    ^bb0(%n: index):
      %buf = memref.alloca(%n) : memref<?xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "dyn"} : () -> ()
  }) : () -> ()
}
