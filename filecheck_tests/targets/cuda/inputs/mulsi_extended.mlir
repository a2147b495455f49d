builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (i32, memref<?xi32>) -> (), kernel}> ({
    ^bb0(%a: i32, %out: memref<?xi32>):
      %c0 = arith.constant 0 : index
      %lo, %hi = arith.mulsi_extended %a, %a : i32
      memref.store %hi, %out[%c0] : memref<?xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "mul"} : () -> ()
  }) : () -> ()
}
