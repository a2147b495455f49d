// RUN: not autogpu-opt %s -p 'agpu-stage-accumulations{assume_no_alias=7}' 2>&1 | filecheck %s --check-prefix=TYPE
// RUN: not autogpu-opt %s -p 'agpu-stage-accumulations{restrict=true}' 2>&1 | filecheck %s --check-prefix=NAME

// TYPE: error: Incompatible types: given (7,), expected <class 'bool'>
// TYPE-NOT: Traceback
// NAME: error: {{.*}}"restrict"{{.*}}"assume_no_alias"
// NAME-NOT: Traceback

func.func @f() {
  func.return
}
