// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(char *s) { s[0] = 0; }

// CHECK-NOT: Traceback
// CHECK: {{^.*}}char-type.c:2:8: error: type 'char' is not supported: use int (or unsigned) instead
// CHECK-NEXT: {{^void f\(char \*s\) \{ s\[0\] = 0; \}$}}
// CHECK-NEXT: {{^ {7}\^$}}
// CHECK-NOT: Traceback
