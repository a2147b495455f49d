// The largest of n ints: an OpenMP `max` reduction spelled as C's conditional.
void max_int(const int *x, int *result, int n) {
  int m = -2147483647 - 1;
#pragma omp parallel for reduction(max : m)
  for (int i = 0; i < n; i++)
    m = x[i] > m ? x[i] : m;
  result[0] = m;
}
