// RUN: not autogpu-opt %s -p 'agpu-specialize{sizes="m"}' 2>&1 | filecheck %s --check-prefix=FORM
// RUN: not autogpu-opt %s -p 'agpu-specialize{sizes="m=x"}' 2>&1 | filecheck %s --check-prefix=VALUE
// RUN: not autogpu-opt %s -p 'agpu-specialize{sizes="m=1,m=2"}' 2>&1 | filecheck %s --check-prefix=TWICE
// RUN: not autogpu-opt %s -p 'agpu-specialize{sizes=m}' 2>&1 | filecheck %s --check-prefix=FORM
// RUN: not autogpu-opt %s -p 'agpu-specialize{size="m=2"}' 2>&1 | filecheck %s --check-prefix=NAME

// FORM: error: agpu-specialize: invalid size 'm': expected NAME=INTEGER, as in sizes="m=2048,n=2048"
// FORM-NOT: Traceback
// VALUE: error: agpu-specialize: invalid size 'm=x'
// TWICE: error: agpu-specialize: 'm' is given twice
// NAME: error: {{.*}}"size"
// NAME-NOT: Traceback

func.func @f(%A: memref<?xf32> {agpu.name = "A"}, %a: f32 {agpu.name = "a", agpu.ctype = "float"},
             %m: i32 {agpu.name = "m", agpu.ctype = "int"}, %u: i32 {agpu.name = "u", agpu.ctype = "unsigned"}) {
  func.return
}
