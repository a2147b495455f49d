// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(float *a) {
  const float scale = 2.0f;
  scale *= 2;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}const-local.c:4:3: error: cannot assign to const variable 'scale'
// CHECK-NEXT: {{^  scale \*= 2;$}}
// CHECK-NEXT: {{^ {2}\^$}}
// CHECK-NOT: Traceback
