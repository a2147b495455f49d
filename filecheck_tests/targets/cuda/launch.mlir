// RUN: autogpu-opt %s -t cuda | filecheck %s

// The host function becomes the launch description: its parameters, and for each launch the
// grid, block and dynamic shared-memory sizes as C expressions over the scalar parameters, with a cast
// where the IR's iN value is not what a 64-bit reading gives: (int)n for the sign extension
// (index_cast) of an unsigned n, (int)count for a truncation; and the bytes of the kernel's
// static __shared__ arrays (none here; tests/dialects/test_signature.py counts real ones).

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf64>, i32, i64, i32) -> (), kernel}> ({
    ^bb0(%grid: memref<?xf64>, %n: i32, %count: i64, %t: i32):
      "gpu.return"() : () -> ()
    }) {sym_name = "first"} : () -> ()
    "gpu.func"() <{function_type = (memref<?xf64>, i32, i64, i32) -> (), kernel}> ({
    ^bb0(%grid: memref<?xf64>, %n: i32, %count: i64, %t: i32):
      "gpu.return"() : () -> ()
    }) {sym_name = "second"} : () -> ()
    "gpu.func"() <{function_type = (memref<?xf64>, i32, i64, i32) -> (), kernel}> ({
    ^bb0(%grid: memref<?xf64>, %n: i32, %count: i64, %t: i32):
      "gpu.return"() : () -> ()
    }) {sym_name = "third"} : () -> ()
  }) : () -> ()
  func.func @host(%grid: memref<?xf64> {agpu.name = "grid", agpu.ctype = "double", agpu.restrict, agpu.extents = ["n", "n"]},
                  %n: i32 {agpu.name = "n", agpu.ctype = "unsigned"},
                  %count: i64 {agpu.name = "count", agpu.ctype = "size_t"},
                  %t: i32 {agpu.name = "t", agpu.ctype = "int"}) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %cm3 = arith.constant -3 : index
    %c65535 = arith.constant 65535 : index
    %ni = arith.index_cast %n : i32 to index
    %ti = arith.index_cast %t : i32 to index
    %ci = arith.index_cast %count : i64 to index
    // first: grid x = max(ceildiv(n - t, t * 2), 1), y = min(count / 128, 65535), z = count % t
    %d = arith.subi %ni, %ti : index
    %per = arith.muli %ti, %c2 : index
    %q = arith.ceildivsi %d, %per : index
    %gx = arith.maxsi %q, %c1 : index
    %y0 = arith.divui %ci, %c128 : index
    %gy = arith.minsi %y0, %c65535 : index
    %gz = arith.remsi %ci, %ti : index
    %shared = arith.constant 1024 : i32
    "gpu.launch_func"(%gx, %gy, %gz, %c128, %c2, %c1, %shared, %grid, %n, %count, %t) <{kernel = @kernels::@first, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 4, 0>}> : (index, index, index, index, index, index, i32, memref<?xf64>, i32, i64, i32) -> ()
    // second: a negative constant, a shift by a constant, unary minus
    %s = arith.addi %ti, %cm3 : index
    %c4 = arith.constant 4 : index
    %sh = arith.shli %s, %c4 : index
    %neg = arith.subi %c1, %sh : index
    %b32 = arith.trunci %count : i64 to i32
    "gpu.launch_func"(%neg, %c1, %c1, %b32, %c1, %c1, %grid, %n, %count, %t) <{kernel = @kernels::@second, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 4, 0>}> : (index, index, index, i32, index, index, memref<?xf64>, i32, i64, i32) -> ()
    // third: i32 arithmetic read as unsigned (n - 5 wraps below 0 in C: (unsigned)(n - 5)),
    // as signed (t * 3 on an int: no cast, C assumes no overflow), a constant -1 : i32 read as
    // unsigned (4294967295)
    %c5 = arith.constant 5 : i32
    %c3 = arith.constant 3 : i32
    %cm1 = arith.constant -1 : i32
    %n5 = arith.subi %n, %c5 : i32
    %n5w = arith.extui %n5 : i32 to i64
    %n5i = arith.index_cast %n5w : i64 to index
    %t3 = arith.muli %t, %c3 : i32
    %t3i = arith.index_cast %t3 : i32 to index
    %allw = arith.extui %cm1 : i32 to i64
    %alli = arith.index_cast %allw : i64 to index
    "gpu.launch_func"(%n5i, %t3i, %alli, %c1, %c1, %c1, %grid, %n, %count, %t) <{kernel = @kernels::@third, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 4, 0>}> : (index, index, index, index, index, index, memref<?xf64>, i32, i64, i32) -> ()
    func.return
  }
}

// CHECK:      // autogpu-launch: {"functions": [{"name": "host", "params": [
// CHECK-SAME: {"name": "grid", "kind": "array", "dtype": "float64", "ctype": "double", "const": false, "restrict": true, "extents": ["n", "n"]},
// CHECK-SAME: {"name": "n", "kind": "scalar", "dtype": "uint32", "ctype": "unsigned"},
// CHECK-SAME: {"name": "count", "kind": "scalar", "dtype": "uint64", "ctype": "size_t"},
// CHECK-SAME: {"name": "t", "kind": "scalar", "dtype": "int32", "ctype": "int"}],
// CHECK-SAME: "launches": [
// CHECK-SAME: {"kernel": "first", "grid": ["max(((int)n - t + t * 2 - 1) / (t * 2), 1)", "min(count / 128, 65535)", "(long long)count % t"], "block": ["128", "2", "1"], "args": ["grid", "n", "count", "t"], "dynamic_shared_bytes": "1024", "static_shared_bytes": 0},
// CHECK-SAME: {"kernel": "second", "grid": ["1 - (t + -3) * 16", "1", "1"], "block": ["(int)count", "1", "1"], "args": ["grid", "n", "count", "t"], "dynamic_shared_bytes": "0", "static_shared_bytes": 0},
// CHECK-SAME: {"kernel": "third", "grid": ["(unsigned)(n - 5)", "t * 3", "4294967295"], "block": ["1", "1", "1"], "args": ["grid", "n", "count", "t"], "dynamic_shared_bytes": "0", "static_shared_bytes": 0}]}]}

// The kernels never touch the array: const, and restrict since read-only. Without arg_attrs,
// parameters take the C types of their IR types.
// CHECK:       extern "C" __global__ void first(const double *__restrict__ grid, int n, long long count, int t) {
// CHECK-NEXT:  }
// CHECK:       extern "C" __global__ void second(
