// Dot product: an OpenMP sum reduction into a scalar, then one store of the result.
void dot(const float *x, const float *y, float *result, int n) {
  float s = 0.0f;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += x[i] * y[i];
  result[0] = s;
}
