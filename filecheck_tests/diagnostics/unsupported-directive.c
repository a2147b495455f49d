// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
#if 1
void f(float *a) { a[0] = 1; }
#endif

// CHECK-NOT: Traceback
// CHECK: {{^.*}}unsupported-directive.c:2:2: error: preprocessor directive '#if' is not supported: only #include, #define, #undef, #ifdef/#ifndef/#else/#endif and #pragma are
// CHECK-NEXT: {{^\#if 1$}}
// CHECK-NEXT: {{^ {1}\^$}}
// CHECK-NOT: Traceback
