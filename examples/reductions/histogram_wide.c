// A histogram of n integer keys into K bins, K a parameter far beyond shared memory: per-block
// partials and a second pass (array_reduction=partials), or global atomics on hist.
void histogram_wide(const int *keys, int *hist, int n, int K) {
#pragma omp parallel for reduction(+ : hist[0:K])
  for (int i = 0; i < n; i++)
    hist[keys[i]] += 1;
}
