// A K-bin histogram of n bytes, K a parameter: the section's per-block copy lives in dynamic
// shared memory where K bins fit (the launch asks for K * 4 bytes), global atomics beyond.
void histogram_k(const unsigned char *data, int *hist, int n, int K) {
#pragma omp parallel for reduction(+ : hist[0:K])
  for (int i = 0; i < n; i++)
    hist[data[i]] += 1;
}
