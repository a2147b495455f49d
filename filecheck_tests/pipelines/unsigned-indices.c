// RUN: autogpu-opt %s -p autogpu-vanilla -t cuda | filecheck %s
// RUN: autogpu-opt %s -p autogpu-vanilla -t cuda | filecheck %s --check-prefix=LAUNCH
// RUN: autogpu-opt %s -p autogpu-optimize -t cuda | filecheck %s --check-prefix=OPT

// C reads a[e] at (size_t)e for an unsigned e: the subscript stays an unsigned expression
// (zero-extended), never (int)(...), which would make a[2^31] a[-2^31]. The 32-bit loop variable
// of an unsigned loop over 64-bit thread indices is their low 32 bits: (unsigned)gid_x.

void offset(unsigned n, unsigned off, float *a) {
  #pragma omp parallel for
  for (unsigned i = 0; i < n; i++)
    a[off + i] = 1.0f;
}
// CHECK-LABEL: offset_kernel(unsigned n, unsigned off, float *a) {
// CHECK:         if (gid_x < n) {
// CHECK-NEXT:      a[off + (unsigned)gid_x] = 1.0f;

// A decreasing loop: i is declared int (its IR type) but indexes as unsigned; the unsigned
// i - 1u wraps (no nsw), so it is computed as unsigned: (int)i - 1 overflowed for i = 2^31.
void down(unsigned n, float *a) {
  #pragma omp parallel for
  for (unsigned i = n; i > 0; i--)
    a[i - 1u] = (float)i;
}
// CHECK-LABEL: down_kernel(unsigned n, float *a) {
// CHECK:         a[i - 1u] = (float)(unsigned)i;

// long and size_t loops with int bounds: the host converts n and m as C does for the launch
// size; a wrapping unsigned start is computed modulo 2^32 there too.
void long_int(int n, int m, float *a) {
  #pragma omp parallel for collapse(2)
  for (long i = 0; i < n; i++)
    for (size_t j = 0; j < (unsigned)m; j++)
      a[i * m + j] = 1.0f;
}
// LAUNCH:      "name": "long_int"
// LAUNCH-SAME: "grid": ["max(((unsigned)m + 255) / 256, 1)", "min(max(n, 1), 65535)", "1"]
// CHECK-LABEL: long_int_kernel(int n, int m, float *a) {
// CHECK-NEXT:    const long long j_ub = (unsigned)m;
// CHECK:           if (gid_x < j_ub) {
// CHECK-NEXT:        a[i_idx * m + gid_x] = 1.0f;

void from(unsigned n, unsigned k, unsigned m, float *a) {
  #pragma omp parallel for
  for (unsigned i = n + k; i < m; i++)
    a[i] = 2.0f;
}
// LAUNCH-SAME: "name": "from"
// LAUNCH-SAME: "grid": ["max((m - (unsigned)(n + k) + 255) / 256, 1)", "1", "1"]
// CHECK-LABEL: from_kernel(unsigned n, unsigned k, unsigned m, float *a) {
// CHECK-NEXT:    const long long i_wide_idx = n + k + ((long long)blockIdx.x * blockDim.x + threadIdx.x);
// CHECK-NEXT:    if (i_wide_idx < m) {
// CHECK-NEXT:      a[(unsigned)i_wide_idx] = 2.0f;

// gpu-cache-shared tiles the unsigned rows; the cooperative load zero-extends its index too.
void stencil(unsigned n, unsigned m, const float *in, float *out) {
  #pragma omp parallel for collapse(2)
  for (unsigned i = 1; i < n - 1; i++)
    for (unsigned j = 1; j < m - 1; j++)
      out[i * m + j] = in[(i - 1u) * m + j] + in[(i + 1u) * m + j] + in[i * m + j - 1u]
                     + in[i * m + j + 1u];
}
// OPT-LABEL: stencil_kernel(unsigned n, unsigned m, const float *__restrict__ in, float *out) {
// OPT:         __shared__ float in_sh[774];
// OPT:         const unsigned in_base =
// OPT:         in_sh[e] = in[in_base + (unsigned)(v4 - 1) + m * (unsigned)v5];
// OPT:         out[(unsigned)i_wide_idx * m + (unsigned)j_wide_idx] = in_sh[
