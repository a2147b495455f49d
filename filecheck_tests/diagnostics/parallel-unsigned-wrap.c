// RUN: autogpu-opt %s -p autogpu-vanilla -t cuda 2>&1 >/dev/null | filecheck %s
// Unsigned subscripts wrap modulo 2^32: iterations i and i + 2^31 of this loop write the same
// element once n > 2^31, so the loop is not provably parallel (a warning, not silence).
void f(unsigned n, float *a) {
#pragma omp parallel for
  for (unsigned i = 0; i < n; i++)
    a[2u * i + 0x80000000u] = 0.0f;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}parallel-unsigned-wrap.c:7:29: warning: cannot prove that the iterations of the parallel loop over 'i' access different elements: 'a[2 * i + 2147483648u]' written here may be written by another iteration too (the unsigned index '2 * i + 2147483648u' may wrap around 2^32); '#pragma omp parallel for' asserts that no two iterations access the same element when one of them writes it
// CHECK-NOT: warning
