// RUN: not autogpu-opt %s -p 'agpu-specialize{sizes="m"}' 2>&1 | filecheck %s --check-prefix=FORM
// RUN: not autogpu-opt %s -p 'agpu-specialize{sizes="m=x"}' 2>&1 | filecheck %s --check-prefix=VALUE
// RUN: not autogpu-opt %s -p 'agpu-specialize{sizes="m=1,m=2"}' 2>&1 | filecheck %s --check-prefix=TWICE
// RUN: not autogpu-opt %s -p 'agpu-specialize{sizes="q=1"}' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not autogpu-opt %s -p 'agpu-specialize{sizes="A=3"}' 2>&1 | filecheck %s --check-prefix=ARRAY
// RUN: not autogpu-opt %s -p 'agpu-specialize{sizes="a=3"}' 2>&1 | filecheck %s --check-prefix=FLOAT
// RUN: not autogpu-opt %s -p 'agpu-specialize{sizes="m=3000000000"}' 2>&1 | filecheck %s --check-prefix=RANGE
// RUN: not autogpu-opt %s -p 'agpu-specialize{sizes="u=-1"}' 2>&1 | filecheck %s --check-prefix=URANGE
// RUN: not autogpu-opt %s -p 'agpu-specialize{sizes="m=4"},agpu-specialize{sizes="m=5"}' 2>&1 | filecheck %s --check-prefix=AGAIN
// RUN: not autogpu-opt %s -p 'agpu-specialize{sizes=m}' 2>&1 | filecheck %s --check-prefix=FORM
// RUN: not autogpu-opt %s -p 'agpu-specialize{size="m=2"}' 2>&1 | filecheck %s --check-prefix=NAME

// FORM: error: agpu-specialize: invalid size 'm': expected NAME=INTEGER, as in sizes="m=2048,n=2048"
// FORM-NOT: Traceback
// VALUE: error: agpu-specialize: invalid size 'm=x'
// TWICE: error: agpu-specialize: 'm' is given twice
// UNKNOWN: error: agpu-specialize: no function has a parameter named 'q'
// UNKNOWN-NOT: Traceback
// ARRAY: error: agpu-specialize: parameter 'A' of function 'f' is an array, not a size
// FLOAT: error: agpu-specialize: parameter 'a' of function 'f' has type f32: only integers can be specialised
// RANGE: error: agpu-specialize: m = 3000000000 does not fit parameter 'm' of function 'f' (-2147483648..2147483647)
// URANGE: error: agpu-specialize: u = -1 does not fit parameter 'u' of function 'f' (0..4294967295)
// AGAIN: error: agpu-specialize: parameter 'm' of function 'f' is already specialised to 4, cannot specialise it to 5
// AGAIN-NOT: Traceback
// NAME: error: {{.*}}"size"
// NAME-NOT: Traceback

func.func @f(%A: memref<?xf32> {agpu.name = "A"}, %a: f32 {agpu.name = "a", agpu.ctype = "float"},
             %m: i32 {agpu.name = "m", agpu.ctype = "int"}, %u: i32 {agpu.name = "u", agpu.ctype = "unsigned"}) {
  func.return
}
