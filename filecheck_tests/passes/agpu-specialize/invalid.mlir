// RUN: not autogpu-opt %s -p 'agpu-specialize{sizes="q=1"}' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not autogpu-opt %s -p 'agpu-specialize{sizes="A=3"}' 2>&1 | filecheck %s --check-prefix=ARRAY
// RUN: not autogpu-opt %s -p 'agpu-specialize{sizes="a=3"}' 2>&1 | filecheck %s --check-prefix=FLOAT
// RUN: not autogpu-opt %s -p 'agpu-specialize{sizes="m=3000000000"}' 2>&1 | filecheck %s --check-prefix=RANGE
// RUN: not autogpu-opt %s -p 'agpu-specialize{sizes="u=-1"}' 2>&1 | filecheck %s --check-prefix=URANGE
// RUN: not autogpu-opt %s -p 'agpu-specialize{sizes="m=4"},agpu-specialize{sizes="m=5"}' 2>&1 | filecheck %s --check-prefix=AGAIN

// Sizes the IR refuses: a name no function has, a parameter that is no integer, a value out of
// the parameter's C range (its agpu.ctype says unsigned or not), a parameter already
// specialised to another value. Errors about a parameter point at its function.

// UNKNOWN: error: agpu-specialize: no function has a parameter named 'q'
// UNKNOWN-NOT: Traceback
// ARRAY: invalid.mlir:22:1: error: agpu-specialize: parameter 'A' of function 'f' is an array, not a size
// ARRAY-NEXT: func.func @f(
// ARRAY-NOT: Traceback
// FLOAT: invalid.mlir:22:1: error: agpu-specialize: parameter 'a' of function 'f' has type f32: only integers can be specialised
// RANGE: invalid.mlir:22:1: error: agpu-specialize: m = 3000000000 does not fit parameter 'm' of function 'f' (-2147483648..2147483647)
// URANGE: invalid.mlir:22:1: error: agpu-specialize: u = -1 does not fit parameter 'u' of function 'f' (0..4294967295)
// AGAIN: invalid.mlir:22:1: error: agpu-specialize: parameter 'm' of function 'f' is already specialised to 4, cannot specialise it to 5
// AGAIN-NOT: Traceback
func.func @f(%A: memref<?xf32> {agpu.name = "A"}, %a: f32 {agpu.name = "a", agpu.ctype = "float"},
             %m: i32 {agpu.name = "m", agpu.ctype = "int"}, %u: i32 {agpu.name = "u", agpu.ctype = "unsigned"}) {
  func.return
}
