// RUN: autogpu-opt %s -p autogpu-vanilla -t cuda | filecheck %s

// Atomics: a native CUDA atomic where one exists, else a compare-and-swap loop on the bits of
// the element; a read is a volatile load. A critical section: a spin lock per name.

void forms(int n, const unsigned *x, int *h, float *f, double *d, unsigned *u, float *out) {
  float s = 0;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp atomic
    h[x[i] % 8] += 1;
#pragma omp atomic
    d[i] *= 3.0;
#pragma omp atomic
    u[i] >>= 1;
#pragma omp atomic
    f[i] = 1.0f - f[i];
#pragma omp atomic
    s += f[i];
    float v;
#pragma omp atomic read
    v = f[n - 1 - i];
    out[i] = v;
  }
  out[n] = s;
}
// CHECK-LABEL: static __device__ inline double agpu_atomic_mulf(double *address, double value) {
// CHECK: old = atomicCAS(bits, assumed, (unsigned long long)__double_as_longlong(current * value));
// CHECK: // #pragma omp critical (tally): 0 when free
// CHECK-NEXT: __device__ int agpu_lock_tally;
// CHECK: __device__ float forms_s;
// CHECK-LABEL: void __launch_bounds__(256) forms_kernel1(
// CHECK: atomicAdd(&h[x[i] % 8u], 1);
// CHECK-NEXT: agpu_atomic_mulf(&d[i], 3.0);
// CHECK-NEXT: {
// CHECK-NEXT: unsigned *const [[W:word]] = (unsigned *)&u[i];
// CHECK-NEXT: unsigned [[SEEN:seen]] = *(volatile unsigned *)[[W]], [[A:assumed]];
// CHECK-NEXT: do {
// CHECK-NEXT: [[A]] = [[SEEN]];
// CHECK-NEXT: const unsigned [[CUR:current]] = [[A]];
// CHECK-NEXT: [[SEEN]] = atomicCAS([[W]], [[A]], ([[CUR]] >> 1));
// CHECK-NEXT: } while ([[SEEN]] != [[A]]);
// CHECK-NEXT: }
// CHECK-NEXT: {
// CHECK-NEXT: unsigned *const [[W2:word_1]] = (unsigned *)&f[i];
// CHECK: const float [[CUR2:current]] = __uint_as_float([[A2:assumed_1]]);
// CHECK-NEXT: [[SEEN2:seen_1]] = atomicCAS([[W2]], [[A2]], __float_as_uint(1.0f - [[CUR2]]));
// CHECK: atomicAdd(&forms_s, f[i]);
// CHECK-NEXT: float [[V:v]];
// CHECK-NEXT: const float [[OLD:old]] = *(volatile float *)&f[n - 1 - i];
// CHECK-NEXT: [[V]] = [[OLD]];
// CHECK-NEXT: out[i] = [[V]];

void critical(int n, const float *x, int *count) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp critical (tally)
    count[0] = count[0] + 1;
  }
}
// CHECK-LABEL: void __launch_bounds__(256) critical_kernel(
// CHECK: unsigned [[B:backoff]] = 32;
// CHECK-NEXT: for (bool [[DONE:done]] = false; ![[DONE]];) {
// CHECK-NEXT: if (*(volatile int *)&agpu_lock_tally == 0 && atomicCAS(&agpu_lock_tally, 0, 1) == 0) {
// CHECK-NEXT: __threadfence();
// CHECK-NEXT: count[0] = count[0] + 1;
// CHECK-NEXT: __threadfence();
// CHECK-NEXT: atomicExch(&agpu_lock_tally, 0);
// CHECK-NEXT: [[DONE]] = true;
// CHECK-NEXT: } else {
// CHECK-NEXT: __nanosleep([[B]]);
// CHECK-NEXT: [[B]] = [[B]] < 32768 ? 2 * [[B]] : 32768;
