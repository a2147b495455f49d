"""The computations the benchmarks time: sizes, inputs, FLOP and byte counts, and a float64
reference that transcribes the C loops of the example directly (so it checks our kernels and the
peers alike, whatever the peers' own index conventions).

Every array is flat and column-major, exactly as the kernels see it. The reference functions take
the array module `xp` (NumPy on the CPU, CuPy on the GPU) so the same code runs on both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

FLOAT = np.float32
BYTES_PER_FLOAT = 4


@dataclass(frozen=True)
class Problem:
    """One C function of examples/: what it computes and how big it is."""

    name: str  # the C function, e.g. "matmul"
    example: str  # file under examples/
    output: str  # the parameter the function writes
    size_names: tuple[str, ...]  # its scalar parameters, which are the problem size

    def reduction_length(self, sizes: dict[str, int]) -> int:
        """How many products are summed into one output element."""
        raise NotImplementedError

    def tolerance(self, sizes: dict[str, int]) -> float:
        """The largest max |out - ref| / max |ref| accepted for a float32 result: 16 eps
        sqrt(K), the random-walk growth of rounding error in a reassociated sum of K terms
        (the tuner's bound, 8 eps sqrt(K) per element against |ref| + max |ref|, taken
        normwise at its largest)."""
        return 16 * float(np.finfo(FLOAT).eps) * self.reduction_length(sizes) ** 0.5

    def label(self, sizes: dict[str, int]) -> str:
        raise NotImplementedError

    def flops(self, sizes: dict[str, int]) -> int:
        raise NotImplementedError

    def min_bytes(self, sizes: dict[str, int]) -> int:
        """Compulsory DRAM traffic: each input read once, each output written (and read if
        accumulated) once. The memory side of the roofline."""
        raise NotImplementedError

    def inputs(self, sizes: dict[str, int], rng: np.random.Generator) -> dict[str, np.ndarray]:
        """Host arrays by name: the kernel's array parameters plus any extra arrays the peer
        needs (conv2d's unpadded image)."""
        raise NotImplementedError

    def reference(self, xp: Any, arrays: dict[str, Any], sizes: dict[str, int]) -> Any:
        """The expected output (flat, float64) computed from the initial `arrays`."""
        raise NotImplementedError


def uniform(rng: np.random.Generator, count: int) -> np.ndarray:
    return rng.uniform(-1.0, 1.0, count).astype(FLOAT)


class Matmul(Problem):
    """examples/matmul.c: A (m x n) += B (m x p) * C (p x n), all column-major (examples/
    dmatmul.c: the same in double)."""

    def __init__(self, name: str = "matmul", dtype: type[np.floating[Any]] = FLOAT) -> None:
        super().__init__(name, f"{name}.c", "A", ("m", "n", "p"))
        self.dtype = dtype

    def tolerance(self, sizes: dict[str, int]) -> float:
        return 16 * float(np.finfo(self.dtype).eps) * self.reduction_length(sizes) ** 0.5

    def reduction_length(self, sizes: dict[str, int]) -> int:
        return sizes["p"]

    def label(self, sizes: dict[str, int]) -> str:
        return f"{sizes['m']}x{sizes['n']}x{sizes['p']}"

    def flops(self, sizes: dict[str, int]) -> int:
        return 2 * sizes["m"] * sizes["n"] * sizes["p"]

    def min_bytes(self, sizes: dict[str, int]) -> int:
        m, n, p = sizes["m"], sizes["n"], sizes["p"]
        return np.dtype(self.dtype).itemsize * (m * p + p * n + 2 * m * n)

    def inputs(self, sizes: dict[str, int], rng: np.random.Generator) -> dict[str, np.ndarray]:
        m, n, p = sizes["m"], sizes["n"], sizes["p"]
        return {name: uniform(rng, count).astype(self.dtype)
                for name, count in (("A", m * n), ("B", m * p), ("C", p * n))}

    def reference(self, xp: Any, arrays: dict[str, Any], sizes: dict[str, int]) -> Any:
        m, n, p = sizes["m"], sizes["n"], sizes["p"]
        # A[i + j*m] is element (i, j) of an m x n Fortran-order matrix, and so on.
        a = arrays["A"].astype(xp.float64).reshape((m, n), order="F")
        b = arrays["B"].astype(xp.float64).reshape((m, p), order="F")
        c = arrays["C"].astype(xp.float64).reshape((p, n), order="F")
        return (a + b @ c).ravel(order="F")


class Conv2d(Problem):
    """examples/conv2d.c: out (n x m) = the t x t window correlation of a zero-padded input of
    (n + t - 1) x (m + t - 1), all column-major. The image sits at offset t // 2 in the padding,
    which makes the result the 'same'-size correlation centred as scipy.ndimage.correlate's."""

    def __init__(self) -> None:
        super().__init__("conv2d", "conv2d.c", "out", ("n", "m", "t"))

    def reduction_length(self, sizes: dict[str, int]) -> int:
        return sizes["t"] ** 2

    def label(self, sizes: dict[str, int]) -> str:
        return f"{sizes['n']}x{sizes['m']} t={sizes['t']}"

    def flops(self, sizes: dict[str, int]) -> int:
        return 2 * sizes["n"] * sizes["m"] * sizes["t"] ** 2

    def min_bytes(self, sizes: dict[str, int]) -> int:
        n, m, t = sizes["n"], sizes["m"], sizes["t"]
        return BYTES_PER_FLOAT * ((n + t - 1) * (m + t - 1) + t * t + n * m)

    def inputs(self, sizes: dict[str, int], rng: np.random.Generator) -> dict[str, np.ndarray]:
        n, m, t = sizes["n"], sizes["m"], sizes["t"]
        image = uniform(rng, n * m)
        before, after = t // 2, t - 1 - t // 2
        # Row-major (m, n) is column-major n x m; padding it pads both dimensions.
        padded = np.pad(image.reshape(m, n), ((before, after), (before, after)))
        return {
            "out": np.zeros(n * m, dtype=FLOAT),
            "in": padded.ravel(),
            "tmpl": uniform(rng, t * t),
            "image": image,  # the peer's input: the same pixels without the padding
        }

    def reference(self, xp: Any, arrays: dict[str, Any], sizes: dict[str, int]) -> Any:
        n, m, t = sizes["n"], sizes["m"], sizes["t"]
        # padded[jj, ii] = in[ii + jj*pn]; window[v, u] = tmpl[u + v*t]
        padded = arrays["in"].astype(xp.float64).reshape(m + t - 1, n + t - 1)
        window = arrays["tmpl"].astype(xp.float64).reshape(t, t)
        total = xp.zeros((m, n), dtype=xp.float64)
        for v in range(t):
            for u in range(t):
                total += float(window[v, u]) * padded[v : v + m, u : u + n]
        return total.ravel()  # out[i + j*n] = total[j, i]


MATMUL = Matmul()
DMATMUL = Matmul("dmatmul", np.float64)
CONV2D = Conv2d()
PROBLEMS: dict[str, Problem] = {p.name: p for p in (MATMUL, DMATMUL, CONV2D)}
