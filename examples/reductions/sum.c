// Sum of n floats: an OpenMP `+` reduction into a scalar, then one store of the result.
void sum(const float *x, float *result, int n) {
  float s = 0.0f;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += x[i];
  result[0] = s;
}
