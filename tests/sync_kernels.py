"""C kernels with `#pragma omp atomic` and `#pragma omp critical`, shared by the tests of their
CUDA lowering (target/test_cuda_sync.py) and of the interpreter (interpreters/
test_interpreter_atomics.py): both must agree with gcc's serial build of the same source."""

HISTOGRAM = """
void histogram(int n, int k, const unsigned *x, int *h, unsigned *u, float *hf) {
  #pragma omp parallel for
  for (int i = 0; i < n; i++) {
    #pragma omp atomic
    h[x[i] % k] += 1;
    #pragma omp atomic update
    u[x[i] % k]++;
    #pragma omp atomic
    hf[x[i] % k] += 0.5f;
  }
}
"""

SCALAR_SUM = """
void total(int n, const float *x, const int *c, float *out, long *count) {
  float s = 0;
  long k = 0;
  #pragma omp parallel for
  for (int i = 0; i < n; i++) {
    #pragma omp atomic
    s += x[i];
    #pragma omp atomic
    k = k + c[i];
  }
  out[0] = s;
  count[0] = k;
}
"""

CAS_FORMS = """
void cas(int n, int k, const unsigned *x, double *p, unsigned *bits, int *d, float *r) {
  #pragma omp parallel for
  for (int i = 0; i < n; i++) {
    #pragma omp atomic
    p[x[i] % k] *= 2.0;
    #pragma omp atomic
    bits[x[i] % k] <<= 1;
    #pragma omp atomic
    d[x[i] % k] /= 2;
    #pragma omp atomic
    r[x[i] % k] = 1.0 * r[x[i] % k];
  }
}
"""

CRITICAL = """
void stats(int n, const float *x, int *count, float *sum) {
  int c = 0;
  float s = 0;
  #pragma omp parallel for
  for (int i = 0; i < n; i++) {
    if (x[i] > 0) {
      #pragma omp critical (acc)
      {
        c++;
        s += x[i];
        count[1] = count[1] + c - c + 1;
      }
    }
  }
  count[0] = c;
  sum[0] = s;
}
"""
