// RUN: not autogpu-opt %s 2>&1 | filecheck --strict-whitespace %s
// A reduction over a _Bool array is refused (its '+' is an 'or'): the 8- and 16-bit types
// reduce through their 32-bit words' CAS, as the scalars do.
void f(int n, const int *b, _Bool h[16]) {
#pragma omp parallel for reduction(+: h)
  for (int i = 0; i < n; i++)
    h[b[i] % 16] += 1;
}

// CHECK-NOT: Traceback
// CHECK: {{^.*}}reduction-array-bool.c:5:39: error: a reduction over an array of '_Bool' is not supported: reduce an 'unsigned char' array with '|' or '&' (what '+' and '*' compute on _Bool values)
// CHECK-NOT: Traceback
