// RUN: not autogpu-opt %s -p 'gpu-optimize-guards{depth=2}' 2>&1 | filecheck %s

// CHECK: error: {{.*}}"depth"
// CHECK-NOT: Traceback

func.func @f() {
  func.return
}
