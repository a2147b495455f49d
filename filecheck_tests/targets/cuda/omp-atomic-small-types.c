// RUN: autogpu-opt %s -p autogpu-vanilla -t cuda | filecheck %s

// Atomics on 8- and 16-bit elements: a compare-and-swap loop on the aligned 32-bit word that
// holds the element, changing only its bits; a write is the exchange helper the reductions use;
// a read is a volatile load of the element.

void small(int n, const int *x, unsigned char *h, short *c, _Bool *b, signed char *v, short *w) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp atomic
    h[x[i] & 7] += 3;
#pragma omp atomic write
    b[x[i] & 1] = x[i] > 5;
#pragma omp atomic capture
    v[i] = c[x[i] & 3]++;
#pragma omp atomic read
    w[i] = c[x[i] & 3];
  }
}
// CHECK-LABEL: static __device__ inline unsigned agpu_atomic_assign_u8(void *address, unsigned value) {
// CHECK-NEXT:    unsigned *word = (unsigned *)((unsigned long long)address & ~3ull);
// CHECK:         assumed = old;
// CHECK-NEXT:    old = atomicCAS(word, assumed, (assumed & ~mask) | (((unsigned)(b) << shift) & mask));
// CHECK-LABEL: void __launch_bounds__(256) small_kernel(
// CHECK:         unsigned char *const [[P:address]] = &h[x[i] & 7];
// CHECK-NEXT:    unsigned *const [[W:word]] = (unsigned *)((unsigned long long)[[P]] & ~3ull);
// CHECK-NEXT:    const unsigned [[S:shift]] = 8u * (unsigned)((unsigned long long)[[P]] & 3ull);
// CHECK-NEXT:    const unsigned [[M:mask]] = 0xFFu << [[S]];
// CHECK-NEXT:    unsigned [[SEEN:seen]] = *(volatile unsigned *)[[W]], [[A:assumed]];
// CHECK-NEXT:    do {
// CHECK-NEXT:      [[A]] = [[SEEN]];
// CHECK-NEXT:      const unsigned char [[CUR:current]] = (unsigned char)(([[A]] & [[M]]) >> [[S]]);
// CHECK-NEXT:      [[SEEN]] = atomicCAS([[W]], [[A]], ([[A]] & ~[[M]]) | (((unsigned)((signed char)([[CUR]] + 3)) << [[S]]) & [[M]]));
// CHECK-NEXT:    } while ([[SEEN]] != [[A]]);
// CHECK:         agpu_atomic_assign_u8(&b{{\[}}[[X:v0]] & 1], (unsigned)([[X]] > 5));
// CHECK:         short [[OLD:old]];
// CHECK-NEXT:    {
// CHECK-NEXT:      short *const [[P2:address_1]] = &c[x[i] & 3];
// CHECK:           const unsigned [[M2:mask_1]] = 0xFFFFu << [[S2:shift_1]];
// CHECK:           [[SEEN2:seen_1]] = atomicCAS(
// CHECK:         } while ([[SEEN2]] != [[A2:assumed_1]]);
// CHECK-NEXT:      [[OLD]] = (short)(([[SEEN2]] & [[M2]]) >> [[S2]]);
// CHECK-NEXT:    }
// CHECK-NEXT:    v[i] = (signed char)[[OLD]];
// CHECK-NEXT:    const short [[R:old_1]] = *(volatile short *)&c[x[i] & 3];
// CHECK-NEXT:    w[i] = [[R]];
