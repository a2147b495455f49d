// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(float *p) {
  *(p + 1) = 1.0f;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}pointer-dereference.c:3:3: error: dereferencing an expression with '*' is not supported: write p[i] for *(p + i) (*p on a pointer parameter is p[0])
// CHECK-NEXT: {{^  \*\(p \+ 1\) = 1\.0f;$}}
// CHECK-NEXT: {{^ {2}\^$}}
// CHECK-NOT: Traceback
