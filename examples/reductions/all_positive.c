// Whether every one of n floats is positive: an OpenMP `&&` reduction (1 or 0).
void all_positive(const float *x, int *result, int n) {
  int ok = 1;
#pragma omp parallel for reduction(&& : ok)
  for (int i = 0; i < n; i++)
    ok = ok && x[i] > 0.0f;
  result[0] = ok;
}
