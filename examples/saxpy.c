// y = a * x + y, the smallest data-parallel kernel.
void saxpy(int n, float a, const float *restrict x, float *restrict y) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
}
