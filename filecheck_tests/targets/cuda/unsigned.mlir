// RUN: autogpu-opt %s -t cuda | filecheck %s

// Parameters declared unsigned in C (agpu.ctype) keep their type; unsigned ops use it without
// casts, signed ops convert it; `size_t`/`long` print as the same-size builtin types.

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (i32, i64, i64, memref<?xi32>, memref<?xi8>, memref<?xi16>) -> (), kernel}> ({
    ^bb0(%u: i32, %size: i64, %l: i64, %out: memref<?xi32>, %bytes: memref<?xi8>, %shorts: memref<?xi16>):
      %c0 = arith.constant 0 : index
      %c3 = arith.constant 3 : i32
      %0 = arith.divui %u, %c3 : i32
      memref.store %0, %out[%c0] : memref<?xi32>
      %1 = arith.divsi %u, %c3 : i32
      memref.store %1, %out[%c0] : memref<?xi32>
      %2 = arith.cmpi ult, %u, %c3 : i32
      %3 = arith.extui %2 : i1 to i32
      memref.store %3, %out[%c0] : memref<?xi32>
      %4 = arith.addi %u, %c3 : i32
      %5 = arith.shrui %4, %c3 : i32
      memref.store %5, %out[%c0] : memref<?xi32>
      %6 = arith.remui %size, %l : i64
      %7 = arith.trunci %6 : i64 to i32
      memref.store %7, %out[%c0] : memref<?xi32>
      %8 = arith.uitofp %u : i32 to f32
      %9 = arith.fptoui %8 : f32 to i32
      memref.store %9, %out[%c0] : memref<?xi32>
      // Narrow integers compute in int and convert back.
      %b = memref.load %bytes[%c0] : memref<?xi8>
      %c1b = arith.constant 1 : i8
      %b1 = arith.addi %b, %c1b : i8
      memref.store %b1, %bytes[%c0] : memref<?xi8>
      %s = memref.load %shorts[%c0] : memref<?xi16>
      %s1 = arith.divui %s, %s : i16
      memref.store %s1, %shorts[%c0] : memref<?xi16>
      "gpu.return"() : () -> ()
    }) {sym_name = "unsigned_ops", arg_attrs = [{agpu.name = "u", agpu.ctype = "unsigned"}, {agpu.name = "size", agpu.ctype = "size_t"},
                                                {agpu.name = "l", agpu.ctype = "long"}, {agpu.name = "out", agpu.ctype = "unsigned int"},
                                                {agpu.name = "bytes", agpu.ctype = "unsigned char"}, {agpu.name = "shorts", agpu.ctype = "short"}]} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: extern "C" __global__ void unsigned_ops(unsigned u, unsigned long long size, long long l, unsigned *out, unsigned char *bytes, short *shorts) {
// CHECK-NEXT:    out[0] = u / 3u;
// CHECK-NEXT:    out[0] = (int)u / 3;
// CHECK-NEXT:    out[0] = (unsigned)(u < 3u);
// CHECK-NEXT:    out[0] = (u + 3u) >> 3;
// CHECK-NEXT:    out[0] = (int)(size % (unsigned long long)l);
// CHECK-NEXT:    out[0] = (unsigned)(float)u;
// CHECK-NEXT:    bytes[0] = (unsigned char)(bytes[0] + (unsigned char)1);
// CHECK-NEXT:    const short s = shorts[0];
// CHECK-NEXT:    shorts[0] = (unsigned short)((unsigned short)s / (unsigned short)s);
// CHECK-NEXT:  }
