// A 256-bin histogram of n bytes: an OpenMP array-section reduction, added to `hist`.
void histogram(const unsigned char *data, int *hist, int n) {
#pragma omp parallel for reduction(+ : hist[0:256])
  for (int i = 0; i < n; i++)
    hist[data[i]] += 1;
}
