// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(int n) {
  int x = 1;
  float x = 2.0f;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}redeclaration.c:4:9: error: redefinition of 'x' (first declared at line 3, column 7): use another name
// CHECK-NEXT: {{^  float x = 2\.0f;$}}
// CHECK-NEXT: {{^ {8}\^$}}
// CHECK-NOT: Traceback
