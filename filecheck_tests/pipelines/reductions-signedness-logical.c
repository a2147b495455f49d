// RUN: autogpu-opt %s | filecheck %s --check-prefix=IR
// RUN: autogpu-opt %s -p convert-agpu-to-gpu | filecheck %s --check-prefix=GPU
// RUN: autogpu-opt %s -p autogpu-vanilla -t cuda | filecheck %s --check-prefix=CUDA

// Integer min/max reductions carry their signedness (IR integers are signless): `umax`/`umin`
// where the updates compare unsigned, lowered to maxui/minui, all-ones/0 identities and CUDA's
// unsigned atomics. `&&`/`||` reductions: 0/1 partial results combined by their truth values.

void umax_unsigned(int n, const unsigned *x, unsigned *out) {
  unsigned s = 7u;
#pragma omp parallel for reduction(max: s)
  for (int i = 0; i < n; i++)
    s = x[i] > s ? x[i] : s;
  out[0] = s;
}
// IR-LABEL: func.func @umax_unsigned(
// IR: %[[S:.*]] = memref.alloca() : memref<i32>
// IR: agpu.parallel_for %i = %{{.*}} to %n step %{{.*}} : i32 reduction(umax %[[S]] : memref<i32>) {
// IR: arith.cmpi ugt

// (generic form: a kernel's name follows its body)
// GPU-LABEL: sym_name = "umax_unsigned_kernel0"
// GPU: %[[SP:.*]] = memref.alloca() : memref<i32>
// GPU-NEXT: %[[ZERO:.*]] = arith.constant 0 : i32
// GPU-NEXT: memref.store %[[ZERO]], %[[SP]][] : memref<i32>
// GPU: arith.maxui
// GPU: "memref.atomic_rmw"(%{{.*}}, %{{.*}}) <{kind = 7 : i64}> : (i32, memref<i32>) -> i32
// GPU: sym_name = "umax_unsigned_kernel1"

// CUDA-LABEL: void __launch_bounds__(256) umax_unsigned_kernel1(
// (the IR is signless: the target prints i32 values as int, and the unsigned view in the atomic)
// CUDA: int s_private = 0;
// CUDA: const int [[DOWN:.*]] = __shfl_down_sync(0xffffffffu, s_private, 16);
// CUDA-NEXT: const int [[V:.*]] = max((unsigned)s_private, (unsigned)[[DOWN]]);
// CUDA: atomicMax((unsigned *)&umax_unsigned_s, (unsigned)[[LAST:.*]]);

void umin_unsigned_long(long n, const unsigned long *x, unsigned long *out) {
  unsigned long s = 5000000000ul;
#pragma omp parallel for reduction(min: s)
  for (long i = 0; i < n; i++)
    if (x[i] < s) s = x[i];
  out[0] = s;
}
// IR-LABEL: func.func @umin_unsigned_long(
// IR: reduction(umin %{{.*}} : memref<i64>)

// GPU-LABEL: sym_name = "umin_unsigned_long_kernel0"
// GPU: %[[ONES:.*]] = arith.constant -1 : i64
// GPU: arith.minui
// GPU: "memref.atomic_rmw"(%{{.*}}, %{{.*}}) <{kind = 11 : i64}> : (i64, memref<i64>) -> i64
// GPU: sym_name = "umin_unsigned_long_kernel1"

// CUDA-LABEL: umin_unsigned_long_kernel1(
// CUDA: long long s_private = -1;
// CUDA: atomicMin((unsigned long long *)&umin_unsigned_long_s, (unsigned long long)[[LAST:.*]]);

// An int compared with an unsigned value compares unsigned, as C converts it.
void umax_int_compared_unsigned(int n, const unsigned *x, int *out) {
  int s = 0;
#pragma omp parallel for reduction(max: s)
  for (int i = 0; i < n; i++)
    s = x[i] > s ? x[i] : s;
  out[0] = s;
}
// IR-LABEL: func.func @umax_int_compared_unsigned(
// IR: reduction(umax %{{.*}} : memref<i32>)
// CUDA-LABEL: umax_int_compared_unsigned_kernel1(
// CUDA: atomicMax((unsigned *)&umax_int_compared_unsigned_s, (unsigned)[[LAST:.*]]);

void all_positive(int n, const float *x, int *out) {
  int all = 1;
#pragma omp parallel for reduction(&&: all)
  for (int i = 0; i < n; i++)
    all = all && x[i] > 0.0f;
  out[0] = all;
}
// IR-LABEL: func.func @all_positive(
// IR: reduction(land %{{.*}} : memref<i32>)

// Before the nest, the variable becomes 0 or 1 (OpenMP's s && ...); blocks combine 0/1 values.
// GPU-LABEL: sym_name = "umax_int_compared_unsigned_kernel2"
// GPU: %[[START:.*]] = memref.load %[[G:.*]][] : memref<i32>
// GPU-NEXT: %[[Z:.*]] = arith.constant 0 : i32
// GPU-NEXT: %[[T:.*]] = arith.cmpi ne, %[[START]], %[[Z]] : i32
// GPU-NEXT: %[[ONE:.*]] = arith.constant 1 : i32
// GPU-NEXT: %[[ZERO:.*]] = arith.constant 0 : i32
// GPU-NEXT: %[[N:.*]] = arith.select %[[T]], %[[ONE]], %[[ZERO]] : i32
// GPU-NEXT: memref.store %[[N]], %[[G]][] : memref<i32>
// GPU: sym_name = "all_positive_kernel0"
// The warps combine by shuffles, each step by the truth values of both lanes' partial results.
// GPU: %[[THEIRS:.*]] = "agpu.shuffle_down"(%[[MINE:.*]]) <{offset = 16 : i32}> : (i32) -> i32
// GPU-NEXT: %[[Z0:.*]] = arith.constant 0 : i32
// GPU-NEXT: %[[M:.*]] = arith.cmpi ne, %[[MINE]], %[[Z0]] : i32
// GPU-NEXT: %[[Z1:.*]] = arith.constant 0 : i32
// GPU-NEXT: %[[T:.*]] = arith.cmpi ne, %[[THEIRS]], %[[Z1]] : i32
// GPU-NEXT: %[[BOTH:.*]] = arith.andi %[[M]], %[[T]] : i1
// GPU: arith.select %[[BOTH]]
// GPU: "memref.atomic_rmw"(%{{.*}}, %{{.*}}) <{kind = 2 : i64}> : (i32, memref<i32>) -> i32
// GPU: sym_name = "all_positive_kernel1"

// CUDA-LABEL: all_positive_kernel0(
// CUDA: all_positive_all = all_positive_all != 0 ? 1 : 0;
// CUDA-LABEL: all_positive_kernel1(
// CUDA: int all_private = 1;
// CUDA: const int [[DOWN:.*]] = __shfl_down_sync(0xffffffffu, all_private, 16);
// CUDA-NEXT: const int [[V:.*]] = all_private != 0 && [[DOWN]] != 0 ? 1 : 0;
// CUDA: const int [[W:.*]] = lane < 8 ? all_shared[lane % 8] : 1;
// CUDA: __shfl_down_sync(0xffffffffu, {{.*}}, 1);
// CUDA-NEXT: const int [[LAST:[a-z0-9_]+]] = {{.*}} != 0 && {{.*}} != 0 ? 1 : 0;
// CUDA-NEXT: if (tx == 0) {
// CUDA-NEXT: atomicAnd(&all_positive_all, [[LAST]] != 0 ? 1 : 0);

void any_nonzero(int n, const double *x, double *out) {
  double any = 0.0;
#pragma omp parallel for reduction(||: any)
  for (int i = 0; i < n; i++)
    any = any || x[i];
  out[0] = any;
}
// IR-LABEL: func.func @any_nonzero(
// IR: reduction(lor %{{.*}} : memref<f64>)
// CUDA-LABEL: any_nonzero_kernel1(
// CUDA: double any_private = 0.0;
// CUDA: const double [[DOWN:.*]] = __shfl_down_sync(0xffffffffu, any_private, 16);
// CUDA-NEXT: const double [[V:.*]] = any_private != 0.0 || [[DOWN]] != 0.0 ? 1.0 : 0.0;
// CUDA: const double [[W:.*]] = lane < 8 ? any_shared[lane % 8] : 0.0;
// CUDA: __shfl_down_sync(0xffffffffu, {{.*}}, 1);
// CUDA-NEXT: const double [[LAST:[a-z0-9_]+]] = {{.*}} != 0.0 || {{.*}} != 0.0 ? 1.0 : 0.0;
// CUDA-NEXT: if (tx == 0) {
// CUDA-NEXT: agpu_atomic_maxnumf(&any_nonzero_any, [[LAST]] != 0.0 ? 1.0 : 0.0);
