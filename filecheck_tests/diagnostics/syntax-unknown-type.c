// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
void f(half n, float *a) {
  a[0] = n;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}syntax-unknown-type.c:2:8: error: unknown type name 'half': the supported types are void, _Bool, char, short, int, long (signed or unsigned), float, double and the names of <stdbool.h>, <stddef.h> and <stdint.h> (bool, size_t, ptrdiff_t, int8_t ... uint64_t, intptr_t, uintptr_t)
// CHECK-NEXT: {{^void f\(half n, float \*a\) \{$}}
// CHECK-NEXT: {{^ {7}\^$}}
// CHECK-NOT: Traceback
