// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// An op that does not verify is reported at its line in the IR file.

func.func @zero_step(%n: i32) {
  %c0 = arith.constant 0 : i32
  agpu.parallel_for %i = %c0 to %n step %c0 : i32 {
  }
  func.return
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}invalid-located.mlir:6:3: error: agpu.parallel_for step must be positive, got 0
// CHECK-NEXT: {{^  agpu.parallel_for %i = %c0 to %n step %c0 : i32 {$}}
// CHECK-NEXT: {{^  \^$}}
