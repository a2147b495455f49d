// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n, const float *in) {
  for (int i = 0; i < n; i++)
    in[i] = 0;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}const-pointer-write.c:4:5: error: cannot write to 'in[...]': 'in' points to const float (drop the const)
// CHECK-NEXT: {{^    in\[i\] = 0;$}}
// CHECK-NEXT: {{^ {4}\^$}}
// CHECK-NOT: Traceback
