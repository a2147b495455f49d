"""Runs emitted CUDA kernels on the CPU, one thread, for tests of the `cuda` target's semantics.

The kernels are compiled by g++ after a minimal shim (CUDA keywords, builtin variables as
`{0,0,0}`/`{1,1,1}`, the few intrinsics the target emits, sequential "atomics"), with the same
flags as the gcc reference (`-fwrapv -ffp-contract=off -fno-builtin`), and called through ctypes
as the `extern "C"` functions they are. Only single-thread kernels make sense here: this is for
checking what each printed expression and statement computes, not for parallel execution (that
is `autogpu.runtime.cpu_exec`'s job).
"""

from __future__ import annotations

import ctypes
import hashlib
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects import func, gpu
from xdsl.dialects.builtin import (
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
    ModuleOp,
)
from xdsl.utils.hints import isa

SHIM = r"""
#include <math.h>
#include <stdint.h>
#include <string.h>
#define __global__
#define __device__
#define __constant__
#define __shared__ static
#define __launch_bounds__(...)
struct agpu_dim3 { unsigned x, y, z; };
static const agpu_dim3 threadIdx = {0, 0, 0}, blockIdx = {0, 0, 0};
static const agpu_dim3 blockDim = {1, 1, 1}, gridDim = {1, 1, 1};
static inline void __syncthreads() {}
#define AGPU_MIN_MAX(T) \
  static inline T min(T a, T b) { return a < b ? a : b; } \
  static inline T max(T a, T b) { return a > b ? a : b; }
AGPU_MIN_MAX(int) AGPU_MIN_MAX(unsigned) AGPU_MIN_MAX(long long) AGPU_MIN_MAX(unsigned long long)
template <class To, class From> static inline To agpu_bits(From v) {
  To t; memcpy(&t, &v, sizeof t); return t;
}
static inline int __float_as_int(float v) { return agpu_bits<int>(v); }
static inline float __int_as_float(int v) { return agpu_bits<float>(v); }
static inline unsigned __float_as_uint(float v) { return agpu_bits<unsigned>(v); }
static inline float __uint_as_float(unsigned v) { return agpu_bits<float>(v); }
static inline long long __double_as_longlong(double v) { return agpu_bits<long long>(v); }
static inline double __longlong_as_double(long long v) { return agpu_bits<double>(v); }
static inline int __clz(int v) { return v == 0 ? 32 : __builtin_clz((unsigned)v); }
static inline int __clzll(long long v) {
  return v == 0 ? 64 : __builtin_clzll((unsigned long long)v);
}
static inline int __popc(unsigned v) { return __builtin_popcount(v); }
static inline int __popcll(unsigned long long v) { return __builtin_popcountll(v); }
static inline int __ffs(int v) { return __builtin_ffs(v); }
static inline int __ffsll(long long v) { return __builtin_ffsll(v); }
static inline float rsqrtf(float v) { return 1.0f / sqrtf(v); }
static inline double rsqrt(double v) { return 1.0 / sqrt(v); }
template <class T> static inline T atomicAdd(T *p, T v) { T old = *p; *p = old + v; return old; }
template <class T> static inline T atomicExch(T *p, T v) { T old = *p; *p = v; return old; }
template <class T> static inline T atomicAnd(T *p, T v) { T old = *p; *p = old & v; return old; }
template <class T> static inline T atomicOr(T *p, T v) { T old = *p; *p = old | v; return old; }
template <class T> static inline T atomicXor(T *p, T v) { T old = *p; *p = old ^ v; return old; }
template <class T> static inline T atomicMin(T *p, T v) { T old = *p; *p = v < old ? v : old; return old; }
template <class T> static inline T atomicMax(T *p, T v) { T old = *p; *p = v > old ? v : old; return old; }
template <class T> static inline T atomicCAS(T *p, T expected, T desired) {
  T old = *p; if (old == expected) *p = desired; return old;
}
"""

GXX_FLAGS = (
    "-std=c++17", "-O0", "-fwrapv", "-ffp-contract=off", "-fno-builtin", "-fPIC", "-shared",
)  # fmt: skip

_build_dir = Path(tempfile.mkdtemp(prefix="autogpu-cuda-cpu-"))
_libraries: dict[str, ctypes.CDLL] = {}


def compile_on_cpu(source: str) -> ctypes.CDLL:
    """The emitted CUDA source as a shared library (cached by source)."""
    key = hashlib.sha256(source.encode()).hexdigest()[:16]
    if key not in _libraries:
        cpp = _build_dir / f"{key}.cpp"
        library = _build_dir / f"{key}.so"
        cpp.write_text(SHIM + "\n" + source)
        run = subprocess.run(
            ["g++", *GXX_FLAGS, str(cpp), "-o", str(library)], capture_output=True, text=True, check=False
        )
        if run.returncode != 0:
            raise AssertionError(f"g++ rejected the emitted CUDA:\n{run.stderr}\n{source}")
        _libraries[key] = ctypes.CDLL(str(library))
    return _libraries[key]


def _ctype(type: Any) -> Any:
    if isinstance(type, MemRefType):
        return ctypes.c_void_p
    if isinstance(type, Float32Type):
        return ctypes.c_float
    if isinstance(type, Float64Type):
        return ctypes.c_double
    if isinstance(type, IndexType):
        return ctypes.c_int64
    if isa(type, IntegerType):
        return {1: ctypes.c_bool, 8: ctypes.c_int8, 16: ctypes.c_int16, 32: ctypes.c_int32,
                64: ctypes.c_int64}[type.width.data]  # fmt: skip
    raise TypeError(type)


def call_kernel(library: ctypes.CDLL, kernel: gpu.FuncOp, args: list[Any]) -> None:
    """Call the kernel once (thread 0 of block 0) with NumPy arrays and Python scalars."""
    function = getattr(library, kernel.sym_name.data)
    types = kernel.function_type.inputs.data
    function.argtypes = [_ctype(t) for t in types]
    function.restype = None
    values = [a.ctypes.data if isinstance(a, np.ndarray) else a for a in args]
    function(*values)


def kernels_as_functions(module: ModuleOp) -> ModuleOp:
    """The module's kernels as C-level `func.func`s (same bodies), for the interpreter."""
    functions: list[func.FuncOp] = []
    for op in module.walk():
        if isinstance(op, gpu.FuncOp):
            region = op.body.clone()
            for inner in list(region.walk()):
                if isinstance(inner, gpu.ReturnOp):
                    parent = inner.parent_block()
                    assert parent is not None
                    parent.insert_op_before(func.ReturnOp(), inner)
                    inner.detach()
                    inner.erase()
            functions.append(func.FuncOp(op.sym_name.data, op.function_type, region))
    return ModuleOp(functions)


def same_values(expected: np.ndarray, actual: np.ndarray) -> bool:
    """Bitwise equality, except that any NaN equals any NaN (payloads are not specified)."""
    if expected.dtype.kind == "f":
        both_nan = np.isnan(expected) & np.isnan(actual)
        bits = expected.view(f"u{expected.itemsize}") == actual.view(f"u{actual.itemsize}")
        return bool(np.all(both_nan | bits))
    return bool(np.array_equal(expected, actual))

