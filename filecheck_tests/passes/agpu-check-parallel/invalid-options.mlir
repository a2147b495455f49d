// RUN: not autogpu-opt %s -p 'agpu-check-parallel{werror=7}' 2>&1 | filecheck %s --check-prefix=TYPE
// RUN: not autogpu-opt %s -p 'agpu-check-parallel{Werror=true}' 2>&1 | filecheck %s --check-prefix=NAME

// TYPE: error: {{.*}}7{{.*}}bool
// TYPE-NOT: Traceback
// NAME: error: {{.*}}"Werror"
// NAME-NOT: Traceback

func.func @f() {
  func.return
}
