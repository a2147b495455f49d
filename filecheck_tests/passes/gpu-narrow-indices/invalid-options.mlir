// RUN: not autogpu-opt %s -p 'gpu-narrow-indices{subscripts=2}' 2>&1 | filecheck %s --check-prefix=TYPE
// RUN: not autogpu-opt %s -p 'gpu-narrow-indices{width=16}' 2>&1 | filecheck %s --check-prefix=NAME

// TYPE: error: Incompatible types: given (2,), expected <class 'bool'>
// TYPE-NOT: Traceback
// NAME: error: {{.*}}"width"{{.*}}"subscripts"
// NAME-NOT: Traceback

func.func @f() {
  func.return
}
