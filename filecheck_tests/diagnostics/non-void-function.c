// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
float f(float x) {
  return x;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}non-void-function.c:2:1: error: function 'f' must return void: kernels return their results through pointer parameters
// CHECK-NEXT: {{^float f\(float x\) \{$}}
// CHECK-NEXT: {{^ {0}\^$}}
// CHECK-NOT: Traceback
