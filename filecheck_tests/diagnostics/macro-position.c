// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// An error inside a macro expansion points at the macro's use.
#define BAD_SCALE (2.0f +)
void f(float *a) {
  a[0] = a[1] * BAD_SCALE;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}macro-position.c:5:17: error: expected an expression before ')'
// CHECK-NEXT: {{^  a\[0\] = a\[1\] \* BAD_SCALE;$}}
// CHECK-NEXT: {{^ {16}\^$}}
// CHECK-NOT: Traceback
