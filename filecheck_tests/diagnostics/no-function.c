// RUN: not autogpu-opt %s 2>&1 | filecheck %s
// A file with no function definition has nothing to compile.
#define N 4
void only_a_prototype(int n);

// CHECK-NOT: Traceback
// CHECK: {{^.*}}no-function.c:1:1: error: no function to compile: the input defines no C function
// CHECK-NOT: Traceback
