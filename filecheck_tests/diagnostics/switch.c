// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, int *a) {
  switch (n) { }
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}switch.c:3:3: error: 'switch' is not supported: use if/else
// CHECK-NEXT: {{^  switch \(n\) \{ \}$}}
// CHECK-NEXT: {{^ {2}\^$}}
// CHECK-NOT: Traceback
