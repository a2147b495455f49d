"""The `gemm` suite's computations (issue #14, "Measure"): `C = alpha * op(A) * op(B) + beta * C`
in every layout of examples/gemm/ (row-major, A or B stored transposed, column-major, C99
arrays), float and double, a SYRK (both operands rows of one array) and a GEMM whose tail is a
bias and a ReLU. Each has the cuBLAS call a user would make for that layout (torch `addmm_` on
views of the very same buffers, TF32 off: transposes as strides, alpha and beta passed to
cuBLAS) and a float64 reference that reads the arrays as the C loops index them.

alpha and beta are scalar parameters of the kernels; they travel with the sizes (small
integers, exact in float and double) so that the runner passes them like m, n and k.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.peers import Peer, peer_module
from benchmarks.problems import Problem, uniform

ALPHA, BETA = 3, -2
"""alpha and beta of every case: neither 0 nor 1, so a dropped or misplaced term fails."""

LAYOUTS = ("nn", "tn", "nt", "cm", "c99")


class Gemm(Problem):
    """examples/gemm/{s,d}gemm_<layout>.c, ssyrk.c and sgemm_bias_relu.c (see LAYOUTS and
    `operands`)."""

    def __init__(self, layout: str, dtype: type[np.floating[Any]] = np.float32,
                 name: str | None = None) -> None:
        prefix = "d" if dtype == np.float64 else "s"
        name = name or f"{prefix}gemm_{layout}"
        super().__init__(name, f"gemm/{name}.c", "C", ("m", "n", "k", "alpha", "beta"))
        self.layout, self.dtype = layout, dtype

    def tolerance(self, sizes: dict[str, int]) -> float:
        return 16 * float(np.finfo(self.dtype).eps) * self.reduction_length(sizes) ** 0.5

    def reduction_length(self, sizes: dict[str, int]) -> int:
        return max(sizes["k"], 1)

    def label(self, sizes: dict[str, int]) -> str:
        return f"{sizes['m']}x{sizes['n']}x{sizes['k']}"

    def flops(self, sizes: dict[str, int]) -> int:
        return 2 * sizes["m"] * sizes["n"] * sizes["k"]

    def min_bytes(self, sizes: dict[str, int]) -> int:
        m, n, k = sizes["m"], sizes["n"], sizes["k"]
        b = 0 if self.layout == "syrk" else k * n
        c = m * n if self.layout == "bias_relu" else 2 * m * n  # written; read when beta
        return np.dtype(self.dtype).itemsize * (m * k + b + c)

    def inputs(self, sizes: dict[str, int], rng: np.random.Generator) -> dict[str, np.ndarray]:
        m, n, k = sizes["m"], sizes["n"], sizes["k"]
        arrays = {"A": uniform(rng, m * k), "C": uniform(rng, m * n)}
        if self.layout == "bias_relu":
            arrays["bias"] = uniform(rng, n)
        if self.layout != "syrk":
            arrays["B"] = uniform(rng, k * n)
        return {name: a.astype(self.dtype) for name, a in arrays.items()}

    def reference(self, xp: Any, arrays: dict[str, Any], sizes: dict[str, int]) -> Any:
        wide = {name: a.astype(xp.float64) for name, a in arrays.items()}
        a, b, c = operands(self.layout, wide, sizes)
        alpha, beta = sizes["alpha"], sizes["beta"]
        if self.layout == "bias_relu":
            return xp.maximum(alpha * (a @ b) + beta * wide["bias"], 0).ravel()
        return (alpha * (a @ b) + beta * c).ravel()  # cm: c is C^T, C's own memory order


def operands(layout: str, arrays: dict[str, Any], s: dict[str, int]) -> tuple[Any, Any, Any]:
    """(a, b, c) 2D views of the flat buffers with c = alpha * a @ b + beta * c being the C
    loops' computation: transposed operands are `.T` views (no copy); for the column-major
    layout c is C^T (n x m, row-major) and the product is B^T A^T, BLAS's own convention."""
    m, n, k = s["m"], s["n"], s["k"]
    A, C = arrays["A"], arrays["C"]
    if layout == "syrk":
        return A.reshape(m, k), A.reshape(n, k).T, C.reshape(m, n)
    B = arrays["B"]
    if layout == "cm":
        return B.reshape(n, k), A.reshape(k, m), C.reshape(n, m)
    a = A.reshape(k, m).T if layout == "tn" else A.reshape(m, k)
    b = B.reshape(n, k).T if layout == "nt" else B.reshape(k, n)
    return a, b, C.reshape(m, n)


def gemm_peer(name: str, problem: Gemm, wrap: Callable[[Any], Any],
              addmm: Callable[[Any, Any, Any, float, float], None],
              relu: Callable[[Any], None]) -> Peer:
    """The layout's library call on the arrays as `wrap` presents them (torch.from_dlpack, or
    NumPy as they are), `addmm(c, a, b, alpha, beta)` writing c in place; the bias-and-ReLU
    tail as the library user writes it (C = bias * beta, addmm with beta 1, `relu(c)`)."""

    def bind(arrays: dict[str, Any], s: dict[str, int]) -> Callable[[], None]:
        a, b, c = operands(problem.layout, {n: wrap(x) for n, x in arrays.items()}, s)
        alpha, beta = float(s["alpha"]), float(s["beta"])
        if problem.layout == "bias_relu":
            bias = wrap(arrays["bias"])

            def fused() -> None:
                c[...] = bias * beta
                addmm(c, a, b, alpha, 1.0)
                relu(c)

            return fused
        return lambda: addmm(c, a, b, alpha, beta)

    return Peer(name, bind)


def torch_peer(problem: str) -> Peer:
    """cuBLAS through PyTorch, TF32 off: `c.addmm_(a, b, beta=, alpha=)` with the transposes
    as strides (torch passes them to cublasGemmEx as op(A)/op(B) without copies)."""
    torch = peer_module("torch", "PyTorch")
    torch.backends.cuda.matmul.allow_tf32 = False
    gemm = GEMMS[problem]

    def addmm(c: Any, a: Any, b: Any, alpha: float, beta: float) -> None:
        c.addmm_(a, b, beta=beta, alpha=alpha)

    kind = "dgemm" if gemm.dtype == np.float64 else "sgemm"
    return gemm_peer(f"cublas-{kind} (torch)", gemm, torch.from_dlpack, addmm,
                     lambda c: c.clamp_(min=0))


def numpy_peer(problem: str) -> Peer:
    """The same views and call on NumPy (the CPU device and the tests)."""

    def addmm(c: Any, a: Any, b: Any, alpha: float, beta: float) -> None:
        c[...] = alpha * (a @ b) + beta * c

    return gemm_peer("numpy (torch addmm_)", GEMMS[problem], lambda x: x, addmm,
                     lambda c: np.maximum(c, 0, out=c))


GEMMS: dict[str, Gemm] = {
    g.name: g for g in (
        *(Gemm(layout) for layout in LAYOUTS),
        *(Gemm(layout, np.float64) for layout in LAYOUTS),
        Gemm("syrk", name="ssyrk"),
        Gemm("bias_relu", name="sgemm_bias_relu"),
    )
}  # fmt: skip
