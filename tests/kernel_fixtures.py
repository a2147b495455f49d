"""Hand-written CUDA kernels and their launch descriptions (docs/ir.md), shared by the tests of
the CPU emulation and of the pycuda executor: the same source must give the same results on both.
"""

from __future__ import annotations

from typing import Any

C_TYPES = {
    "float32": "float",
    "float64": "double",
    "int32": "int",
    "uint32": "unsigned",
    "int64": "long",
    "uint64": "unsigned long",
}


def scalar(name: str, dtype: str, ctype: str | None = None) -> dict[str, Any]:
    return {"name": name, "kind": "scalar", "dtype": dtype, "ctype": ctype or C_TYPES[dtype]}


def array(
    name: str, dtype: str, *, const: bool = False, extents: list[Any] | None = None
) -> dict[str, Any]:
    return {
        "name": name,
        "kind": "array",
        "dtype": dtype,
        "ctype": C_TYPES[dtype],
        "const": const,
        "restrict": False,
        "extents": extents,
    }


def launch(
    kernel: str, grid: list[str], block: list[str], args: list[str], shared: str = "0"
) -> dict[str, Any]:
    return {
        "kernel": kernel,
        "grid": grid,
        "block": block,
        "args": args,
        "dynamic_shared_bytes": shared,
    }


def function(name: str, params: list[dict[str, Any]], *launches: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "params": params, "launches": list(launches)}


SOURCE = r"""
// autogpu-launch: (hand-written test kernels)
#include <cuda_runtime.h>
#include <assert.h>

extern "C" __global__ void saxpy_kernel(int n, float a, const float* __restrict__ x,
                                        float* __restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// out[i][j] = A[i][j] * 2 + i * 1000 + j over an m x n matrix, 2D grid of 16 x 8 blocks.
extern "C" __global__ void grid2d_kernel(int m, int n, const float* A, float* out) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < m && j < n) out[i * n + j] = A[i * n + j] * 2.0f + (float)(i * 1000 + j);
}

// Every thread of a 3D grid of 3D blocks records who it is.
extern "C" __global__ void ids3d_kernel(int* out) {
  unsigned bx = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned tx = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  unsigned g = bx * threads + tx;
  out[4 * g + 0] = blockIdx.x * 100 + threadIdx.x;
  out[4 * g + 1] = blockIdx.y * 100 + threadIdx.y;
  out[4 * g + 2] = blockIdx.z * 100 + threadIdx.z;
  out[4 * g + 3] = gridDim.x * 1000000 + gridDim.y * 10000 + gridDim.z * 100 + blockDim.z;
}

// Reverses each block of 256 values through shared memory: wrong without the barrier.
extern "C" __global__ void reverse_kernel(float* v) {
  __shared__ float tile[256];
  unsigned t = threadIdx.x;
  unsigned base = blockIdx.x * blockDim.x;
  tile[t] = v[base + t];
  __syncthreads();
  v[base + t] = tile[blockDim.x - 1 - t];
}

// The same without the barrier: a race. Thread t reads tile[255 - t], which, in the forward
// order, thread 255 - t has not written yet when t < 128.
extern "C" __global__ void reverse_racy_kernel(float* v) {
  __shared__ float tile[256];
  unsigned t = threadIdx.x;
  unsigned base = blockIdx.x * blockDim.x;
  tile[t] = v[base + t];
  v[base + t] = tile[blockDim.x - 1 - t];
}

// Shift by one within a block, missing its barrier: right by luck in the forward order only.
extern "C" __global__ void shift_racy_kernel(const float* v, float* out) {
  __shared__ float tile[256];
  unsigned t = threadIdx.x;
  tile[t] = v[blockIdx.x * blockDim.x + t];
  out[blockIdx.x * blockDim.x + t] = t > 0 ? tile[t - 1] : 0.0f;
}

// Tree sum of each block (blockDim.x a power of two, up to 1024), several barriers in a loop;
// a per-thread local array lives across them.
extern "C" __global__ void block_sum_kernel(int n, const float* x, float* sums, float* checks) {
  __shared__ float partial[1024];
  unsigned t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  float mine[3];
  mine[0] = i < n ? x[i] : 0.0f;
  mine[1] = (float)t;
  mine[2] = (float)blockIdx.x;
  partial[t] = mine[0];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = partial[0];
  if (i < n) checks[i] = mine[0] + mine[1] * 1000.0f + mine[2] * 1000000.0f;
}

// Each block fills shared memory with its own number, then checks it over several barrier
// rounds: blocks running at the same time must not see each other's shared memory.
extern "C" __global__ void isolation_kernel(int rounds, int* bad) {
  __shared__ int mark[128];
  __shared__ int counter;
  unsigned t = threadIdx.x;
  int errors = 0;
  if (t == 0) counter = 0;
  for (int r = 0; r < rounds; ++r) {
    mark[t] = (int)blockIdx.x * 1000 + r;
    __syncthreads();
    for (unsigned k = 0; k < blockDim.x; ++k)
      if (mark[k] != (int)blockIdx.x * 1000 + r) ++errors;
    atomicAdd(&counter, 1);
    __syncthreads();
    if (counter != (r + 1) * (int)blockDim.x) ++errors;
    __syncthreads();
  }
  bad[blockIdx.x * blockDim.x + t] = errors;
}

// A reduction into __device__ globals with atomics, over three launches.
__device__ unsigned long long device_sum;
__device__ float device_fsum;
__device__ int device_max;
__device__ unsigned int device_min;
__device__ int device_count;
__device__ float device_fmax;

extern "C" __global__ void reset_kernel() {
  device_sum = 0;
  device_fsum = 0.0f;
  device_max = -2147483647 - 1;
  device_min = 0xFFFFFFFFu;
  device_count = 0;
  device_fmax = -INFINITY;
}

__device__ void atomic_max_float(float* address, float value) {
  int old = __float_as_int(*address);
  while (__int_as_float(old) < value) {
    int assumed = old;
    old = atomicCAS((int*)address, assumed, __float_as_int(value));
    if (old == assumed) break;
  }
}

extern "C" __global__ void accumulate_kernel(int n, const int* values, const float* fvalues) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(&device_sum, (unsigned long long)(long long)values[i]);
  atomicAdd(&device_fsum, fvalues[i]);
  atomicMax(&device_max, values[i]);
  atomicMin(&device_min, (unsigned int)values[i]);
  atomicAdd(&device_count, 1);
  atomic_max_float(&device_fmax, fvalues[i]);
}

extern "C" __global__ void store_kernel(unsigned long long* sum, float* fsum, int* mx,
                                        unsigned int* mn, int* count, float* fmx) {
  sum[0] = device_sum;
  fsum[0] = device_fsum;
  mx[0] = device_max;
  mn[0] = device_min;
  count[0] = atomicExch(&device_count, 0);
  fmx[0] = device_fmax;
}

// Float arithmetic as C does it in float: (x + big) - big, and a * b + c not fused.
extern "C" __global__ void float_kernel(int n, const float* a, const float* b, const float* c,
                                        float* cancel, float* muladd, float* div, float* root) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cancel[i] = (a[i] + 1.0e8f) - 1.0e8f;
  muladd[i] = a[i] * b[i] + c[i];
  div[i] = a[i] / b[i];
  root[i] = sqrtf(fabsf(c[i]));
}

// Integer semantics: int32 wraps, unsigned and signed division, usual conversions, min/max.
extern "C" __global__ void int_kernel(int n, const int* a, const unsigned* u, const unsigned* v,
                                      int* wrap, unsigned* udiv, unsigned* urem, int* sdiv,
                                      int* srem, unsigned* mixed, unsigned* umin, int* smax) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  wrap[i] = a[i] * 65537 + 2147483647;
  udiv[i] = u[i] / v[i];
  urem[i] = u[i] % v[i];
  sdiv[i] = a[i] / 7;
  srem[i] = a[i] % 7;
  mixed[i] = a[i] / v[i];  // a[i] converted to unsigned, as in C
  umin[i] = min(a[i], v[i]);
  smax[i] = max(a[i], -5);
}

// Dynamic shared memory: a block-wide rotation through an extern __shared__ buffer.
extern "C" __global__ void rotate_kernel(int k, float* v) {
  extern __shared__ float buffer[];
  unsigned t = threadIdx.x;
  buffer[t] = v[blockIdx.x * blockDim.x + t];
  __syncthreads();
  v[blockIdx.x * blockDim.x + t] = buffer[(t + k) % blockDim.x];
}

// Shared memory is uninitialised: reading it before writing it is a bug (here: NaN).
extern "C" __global__ void uninitialised_shared_kernel(float* out) {
  __shared__ float acc[64];
  extern __shared__ int counts[];
  acc[threadIdx.x] += 1.0f;
  counts[threadIdx.x] += 1;
  __syncthreads();
  out[2 * (blockIdx.x * blockDim.x + threadIdx.x)] = acc[threadIdx.x];
  out[2 * (blockIdx.x * blockDim.x + threadIdx.x) + 1] = (float)counts[threadIdx.x];
}

// A barrier in divergent code: undefined in CUDA, an error here.
extern "C" __global__ void divergent_exit_kernel(float* v) {
  if (threadIdx.x >= 16) return;
  __syncthreads();
  v[threadIdx.x] = 1.0f;
}

extern "C" __global__ void divergent_barrier_kernel(float* v) {
  if (threadIdx.x < 16) __syncthreads();
  v[threadIdx.x] = 1.0f;
}

extern "C" __global__ void assert_kernel(int limit, const int* v) {
  assert(v[threadIdx.x] < limit);
}

// Math: float and double overloads as in CUDA C++ (sqrt of a float is a float).
extern "C" __global__ void math_kernel(int n, const float* x, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float f = x[i];
  out[5 * i + 0] = sqrt(f);
  out[5 * i + 1] = fminf(f, 0.5f);
  out[5 * i + 2] = min(f, 0.25f);
  out[5 * i + 3] = max(f, 0.75f);
  out[5 * i + 4] = __int_as_float(__float_as_int(f) ^ 0x80000000);
}
"""

N = "(n + 255) / 256"


def _fn(name: str, params: list[dict[str, Any]], *launches: dict[str, Any]) -> dict[str, Any]:
    return function(name, params, *launches)


LAUNCH = {
    "functions": [
        _fn(
            "saxpy",
            [scalar("n", "int32", "int"), scalar("a", "float32", "float"),
             array("x", "float32", const=True), array("y", "float32")],
            launch("saxpy_kernel", [N, "1", "1"], ["256", "1", "1"], ["n", "a", "x", "y"]),
        ),
        _fn(
            "grid2d",
            [scalar("m", "int32"), scalar("n", "int32"),
             array("A", "float32", const=True, extents=["m", "n"]),
             array("out", "float32", extents=["m", "n"])],
            launch("grid2d_kernel", ["(n + 15) / 16", "(m + 7) / 8", "1"], ["16", "8", "1"],
                   ["m", "n", "A", "out"]),
        ),
        _fn(
            "ids3d",
            [scalar("gx", "int32"), scalar("gy", "int32"), scalar("gz", "int32"),
             array("out", "int32")],
            launch("ids3d_kernel", ["gx", "gy", "gz"], ["4", "3", "2"], ["out"]),
        ),
        _fn(
            "reverse",
            [scalar("blocks", "int32"), array("v", "float32")],
            launch("reverse_kernel", ["blocks", "1", "1"], ["256", "1", "1"], ["v"]),
        ),
        _fn(
            "reverse_racy",
            [scalar("blocks", "int32"), array("v", "float32")],
            launch("reverse_racy_kernel", ["blocks", "1", "1"], ["256", "1", "1"], ["v"]),
        ),
        _fn(
            "shift_racy",
            [scalar("blocks", "int32"), array("v", "float32", const=True), array("out", "float32")],
            launch("shift_racy_kernel", ["blocks", "1", "1"], ["256", "1", "1"], ["v", "out"]),
        ),
        _fn(
            "block_sum",
            [scalar("n", "int32"), scalar("threads", "int32"), array("x", "float32", const=True),
             array("sums", "float32"), array("checks", "float32")],
            launch("block_sum_kernel", ["(n + threads - 1) / threads", "1", "1"],
                   ["threads", "1", "1"], ["n", "x", "sums", "checks"]),
        ),
        _fn(
            "isolation",
            [scalar("blocks", "int32"), scalar("rounds", "int32"), array("bad", "int32")],
            launch("isolation_kernel", ["blocks", "1", "1"], ["128", "1", "1"],
                   ["rounds", "bad"]),
        ),
        _fn(
            "reduce",
            [scalar("n", "int32"), array("values", "int32", const=True),
             array("fvalues", "float32", const=True), array("sum", "uint64"),
             array("fsum", "float32"), array("mx", "int32"), array("mn", "uint32"),
             array("count", "int32"), array("fmx", "float32")],
            launch("reset_kernel", ["1", "1", "1"], ["1", "1", "1"], []),
            launch("accumulate_kernel", [N, "1", "1"], ["256", "1", "1"],
                   ["n", "values", "fvalues"]),
            launch("store_kernel", ["1", "1", "1"], ["1", "1", "1"],
                   ["sum", "fsum", "mx", "mn", "count", "fmx"]),
        ),
        _fn(
            "floats",
            [scalar("n", "int32"), array("a", "float32", const=True),
             array("b", "float32", const=True), array("c", "float32", const=True),
             array("cancel", "float32"), array("muladd", "float32"), array("div", "float32"),
             array("root", "float32")],
            launch("float_kernel", [N, "1", "1"], ["256", "1", "1"],
                   ["n", "a", "b", "c", "cancel", "muladd", "div", "root"]),
        ),
        _fn(
            "ints",
            [scalar("n", "int32"), array("a", "int32", const=True),
             array("u", "uint32", const=True), array("v", "uint32", const=True),
             array("wrap", "int32"), array("udiv", "uint32"), array("urem", "uint32"),
             array("sdiv", "int32"), array("srem", "int32"), array("mixed", "uint32"),
             array("umin", "uint32"), array("smax", "int32")],
            launch("int_kernel", [N, "1", "1"], ["256", "1", "1"],
                   ["n", "a", "u", "v", "wrap", "udiv", "urem", "sdiv", "srem", "mixed",
                    "umin", "smax"]),
        ),
        _fn(
            "rotate",
            [scalar("blocks", "int32"), scalar("threads", "int32"), scalar("k", "int32"),
             array("v", "float32")],
            launch("rotate_kernel", ["blocks", "1", "1"], ["threads", "1", "1"], ["k", "v"],
                   shared="threads * 4"),
        ),
        _fn(
            "uninitialised_shared",
            [scalar("blocks", "int32"), array("out", "float32")],
            launch("uninitialised_shared_kernel", ["blocks", "1", "1"], ["64", "1", "1"],
                   ["out"], shared="256"),
        ),
        _fn(
            "divergent_exit",
            [array("v", "float32")],
            launch("divergent_exit_kernel", ["2", "1", "1"], ["64", "1", "1"], ["v"]),
        ),
        _fn(
            "divergent_barrier",
            [array("v", "float32")],
            launch("divergent_barrier_kernel", ["1", "1", "1"], ["64", "1", "1"], ["v"]),
        ),
        _fn(
            "check_below",
            [scalar("limit", "int32"), array("v", "int32", const=True)],
            launch("assert_kernel", ["1", "1", "1"], ["32", "1", "1"], ["limit", "v"]),
        ),
        _fn(
            "math",
            [scalar("n", "int32"), array("x", "float32", const=True), array("out", "float32")],
            launch("math_kernel", [N, "1", "1"], ["256", "1", "1"], ["n", "x", "out"]),
        ),
    ]
}
