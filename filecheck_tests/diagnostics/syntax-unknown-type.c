// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(uint32_t n, float *a) {
  a[0] = n;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}syntax-unknown-type.c:2:8: error: unknown type name 'uint32_t': the supported types are void, int, unsigned, long, unsigned long, size_t, float and double
// CHECK-NEXT: {{^void f\(uint32_t n, float \*a\) \{$}}
// CHECK-NEXT: {{^ {7}\^$}}
// CHECK-NOT: Traceback
