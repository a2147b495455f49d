// RUN: autogpu-opt %s -p autogpu-vanilla -t cuda 2>&1 >/dev/null | filecheck %s
// RUN: autogpu-opt %s -p autogpu-vanilla -t cuda 2>/dev/null | filecheck %s --check-prefix=CUDA
// RUN: not autogpu-opt --Werror %s 2>&1 | filecheck %s --check-prefix=WERROR

// The elements a histogram updates are read from memory: whether two iterations update the
// same one depends on the data. The pragma asserts they never do; the compiler cannot check
// it, so it says so and compiles (--Werror refuses).
void histogram(float *h, const int *bin, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    h[bin[i]] += 1.0f;
}

// CHECK-NOT: Traceback
// CHECK: {{^(.*:[0-9]+:[0-9]+: )?}}warning: cannot prove that the iterations of the parallel loop over 'i' access different elements: 'h[bin[i]]' written here and 'h[bin[i]]' read (line 11:15) may be the same element in two iterations ('bin[i]' is read from memory); '#pragma omp parallel for' asserts that no two iterations access the same element when one of them writes it
// CHECK-NOT: warning
// CUDA: __global__ void {{.*}}histogram_kernel(

// WERROR-NOT: Traceback
// WERROR: {{^(.*:[0-9]+:[0-9]+: )?}}error: cannot prove that the iterations of the parallel loop over 'i' access different elements: 'h[bin[i]]'
// WERROR: {{^}}error: 1 warning(s) treated as errors (--Werror)
// WERROR-NOT: Traceback
