builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (f16) -> (), kernel}> ({
    ^bb0(%h: f16):

      "gpu.return"() : () -> ()
    }) {sym_name = "half"} : () -> ()
  }) : () -> ()
}
