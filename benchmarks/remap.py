"""The `remap` suite's computations (issue #13, "Measure"): deep nests with small inner extents,
where flat remapping (agpu-flatten-nest) competes with the 3D mapping, and the Jacobi 2D time
loop, whose host program launches 2T kernels. Each has the PyTorch call a user would write
instead, run on the same device buffers (torch.from_dlpack of CuPy's arrays), and a float64
reference that transcribes the C loops.

- bmm4 (examples/remap/bmm4.c): a batch of small matrix products, `torch.matmul` on 4D tensors;
- scale5 (examples/remap/scale5.c): a 5D scale and shift with broadcast parameters,
  `torch.addcmul`;
- jacobi_2d (examples/omp/jacobi_2d.c, and examples/remap/jacobi_2d.c whose sweeps are
  `collapse(2)`): T steps of two 5-point sweeps in double, the same loop in PyTorch eager
  (slices). Its byte count is the sweeps' own DRAM traffic (each sweep reads one
  grid and writes the other), so "% of roofline" says how close each sweep runs to the copy
  bandwidth; `launch_overhead` compares T steps with T times one step;
- jacobi_2d_converge (examples/remap/jacobi_2d_converge.c): the same sweeps in a convergence
  loop (`for (t = 0; t < maxsteps && diff > 1e-12; t++)`, `diff` a max reduction of the first
  sweep), whose host program reads `diff`'s test back once per step; the tolerance is never
  reached within the cap on random data, so every step runs. PyTorch eager runs the same loop,
  reading its `diff` with `float()` (a sync per step, as the host read is).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from benchmarks.peers import Peer, PeerUnavailable
from benchmarks.problems import Problem, uniform
from benchmarks.report import OK, Row


class Bmm4(Problem):
    """C[a][b] = A[a][b] @ B[a][b], (ni x nk) @ (nk x nj) blocks, row-major float."""

    def __init__(self) -> None:
        super().__init__("bmm4", "remap/bmm4.c", "C", ("na", "nb", "ni", "nj", "nk"))

    def reduction_length(self, sizes: dict[str, int]) -> int:
        return sizes["nk"]

    def label(self, sizes: dict[str, int]) -> str:
        s = sizes
        return f"{s['na']}x{s['nb']}x{s['ni']}x{s['nj']} k={s['nk']}"

    def flops(self, sizes: dict[str, int]) -> int:
        s = sizes
        return 2 * s["na"] * s["nb"] * s["ni"] * s["nj"] * s["nk"]

    def min_bytes(self, sizes: dict[str, int]) -> int:
        s = sizes
        return 4 * s["na"] * s["nb"] * (s["ni"] * s["nk"] + s["nk"] * s["nj"] + s["ni"] * s["nj"])

    def inputs(self, sizes: dict[str, int], rng: np.random.Generator) -> dict[str, np.ndarray]:
        s = sizes
        batch = s["na"] * s["nb"]
        return {"A": uniform(rng, batch * s["ni"] * s["nk"]),
                "B": uniform(rng, batch * s["nk"] * s["nj"]),
                "C": np.zeros(batch * s["ni"] * s["nj"], np.float32)}

    def reference(self, xp: Any, arrays: dict[str, Any], sizes: dict[str, int]) -> Any:
        s = sizes
        a = arrays["A"].astype(xp.float64).reshape(s["na"], s["nb"], s["ni"], s["nk"])
        b = arrays["B"].astype(xp.float64).reshape(s["na"], s["nb"], s["nk"], s["nj"])
        return xp.matmul(a, b).ravel()


class Scale5(Problem):
    """y = x * w + s over an n0 x ... x n4 float tensor, w and s of n2 x n3 x n4 broadcast."""

    def __init__(self) -> None:
        super().__init__("scale5", "remap/scale5.c", "y", ("n0", "n1", "n2", "n3", "n4"))

    def reduction_length(self, sizes: dict[str, int]) -> int:
        return 1

    def label(self, sizes: dict[str, int]) -> str:
        return "x".join(str(sizes[k]) for k in self.size_names)

    def flops(self, sizes: dict[str, int]) -> int:
        return 2 * int(np.prod([sizes[k] for k in self.size_names]))

    def min_bytes(self, sizes: dict[str, int]) -> int:
        inner = sizes["n2"] * sizes["n3"] * sizes["n4"]
        return 4 * (2 * sizes["n0"] * sizes["n1"] * inner + 2 * inner)

    def inputs(self, sizes: dict[str, int], rng: np.random.Generator) -> dict[str, np.ndarray]:
        inner = sizes["n2"] * sizes["n3"] * sizes["n4"]
        count = sizes["n0"] * sizes["n1"] * inner
        return {"x": uniform(rng, count), "w": uniform(rng, inner), "s": uniform(rng, inner),
                "y": np.zeros(count, np.float32)}

    def reference(self, xp: Any, arrays: dict[str, Any], sizes: dict[str, int]) -> Any:
        inner = sizes["n2"] * sizes["n3"] * sizes["n4"]
        x = arrays["x"].astype(xp.float64).reshape(-1, inner)
        w, s = (arrays[k].astype(xp.float64) for k in ("w", "s"))
        return (x * w + s).ravel()


class Jacobi2d(Problem):
    """tsteps steps of B = 5-point mean of A, then A = that of B, on the interior of n x n
    doubles (row-major). The output checked is A."""

    def __init__(self, example: str = "omp/jacobi_2d.c") -> None:
        super().__init__("jacobi_2d", example, "A", ("tsteps", "n"))

    def reduction_length(self, sizes: dict[str, int]) -> int:
        return 5

    def tolerance(self, sizes: dict[str, int]) -> float:
        # the kernels add the five terms in the C order, in double: only the peers differ
        return 1e-12

    def label(self, sizes: dict[str, int]) -> str:
        return f"T={sizes['tsteps']} {sizes['n']}^2"

    def flops(self, sizes: dict[str, int]) -> int:
        return 2 * sizes["tsteps"] * 5 * max(sizes["n"] - 2, 0) ** 2

    def min_bytes(self, sizes: dict[str, int]) -> int:
        # per sweep: one grid read, the other's interior written
        n = sizes["n"]
        return 2 * sizes["tsteps"] * 8 * (n * n + max(n - 2, 0) ** 2)

    def inputs(self, sizes: dict[str, int], rng: np.random.Generator) -> dict[str, np.ndarray]:
        n = sizes["n"]
        return {"A": rng.uniform(-1.0, 1.0, n * n), "B": rng.uniform(-1.0, 1.0, n * n)}

    def reference(self, xp: Any, arrays: dict[str, Any], sizes: dict[str, int]) -> Any:
        n = sizes["n"]
        a = arrays["A"].astype(xp.float64).reshape(n, n).copy()
        b = arrays["B"].astype(xp.float64).reshape(n, n).copy()
        for _ in range(sizes["tsteps"]):
            sweep(a, b)
            sweep(b, a)
        return a.ravel()


def sweep(src: Any, dst: Any) -> None:
    """dst's interior = 0.2 * (the five points of src), added in the C loop's order (NumPy,
    CuPy or PyTorch tensors alike)."""
    dst[1:-1, 1:-1] = 0.2 * (src[1:-1, 1:-1] + src[1:-1, :-2] + src[1:-1, 2:] + src[2:, 1:-1]
                             + src[:-2, 1:-1])


class Jacobi2dConverge(Jacobi2d):
    """Jacobi2d's steps until the largest change of a first sweep is at most 1e-12, at most
    `maxsteps` of them: on random data every step runs, so the expected output is Jacobi2d's
    at `maxsteps`, and `steps` holds the count."""

    def __init__(self) -> None:
        Problem.__init__(self, "jacobi_2d_converge", "remap/jacobi_2d_converge.c", "A",
                         ("maxsteps", "n"))

    @staticmethod
    def _as_steps(sizes: dict[str, int]) -> dict[str, int]:
        return {"tsteps": sizes["maxsteps"], "n": sizes["n"]}

    def label(self, sizes: dict[str, int]) -> str:
        return f"at most {sizes['maxsteps']} steps, {sizes['n']}^2"

    def flops(self, sizes: dict[str, int]) -> int:
        return super().flops(self._as_steps(sizes))

    def min_bytes(self, sizes: dict[str, int]) -> int:
        return super().min_bytes(self._as_steps(sizes))

    def inputs(self, sizes: dict[str, int], rng: np.random.Generator) -> dict[str, np.ndarray]:
        return {**super().inputs(self._as_steps(sizes), rng), "steps": np.zeros(1, np.int32)}

    def reference(self, xp: Any, arrays: dict[str, Any], sizes: dict[str, int]) -> Any:
        return super().reference(xp, arrays, self._as_steps(sizes))


CONVERGE_TOLERANCE = 1e-12
BMM4, SCALE5, JACOBI_2D = Bmm4(), Scale5(), Jacobi2d()
JACOBI_2D_COLLAPSED = Jacobi2d("remap/jacobi_2d.c")  # the same function, sweeps collapse(2)
JACOBI_2D_CONVERGE = Jacobi2dConverge()
REMAP: dict[str, Problem] = {p.name: p for p in (BMM4, SCALE5, JACOBI_2D, JACOBI_2D_CONVERGE)}

PEER_NAMES = {"bmm4": "torch.matmul", "scale5": "torch.addcmul", "jacobi_2d": "torch eager loop",
              "jacobi_2d_converge": "torch eager loop, float(diff) per step"}


def calls(lib: Any) -> dict[str, Callable[[dict[str, Any], dict[str, int]], Callable[[], Any]]]:
    """Per problem: (arrays as `lib` tensors, sizes) -> a call writing the outputs in place.
    `lib` is torch (the GPU peer) or NumPy (the CPU device), whose calls here are the same."""

    def bmm4(t: dict[str, Any], s: dict[str, int]) -> Callable[[], Any]:
        a = t["A"].reshape(s["na"], s["nb"], s["ni"], s["nk"])
        b = t["B"].reshape(s["na"], s["nb"], s["nk"], s["nj"])
        c = t["C"].reshape(s["na"], s["nb"], s["ni"], s["nj"])
        return lambda: lib.matmul(a, b, out=c)

    def scale5(t: dict[str, Any], s: dict[str, int]) -> Callable[[], Any]:
        inner = (s["n2"], s["n3"], s["n4"])
        x, y = (t[k].reshape(s["n0"], s["n1"], *inner) for k in ("x", "y"))
        w, b = (t[k].reshape(*inner) for k in ("w", "s"))
        if lib.__name__ == "numpy":
            return lambda: np.add(x * w, b, out=y)
        return lambda: lib.addcmul(b, x, w, out=y)

    def jacobi_2d(t: dict[str, Any], s: dict[str, int]) -> Callable[[], Any]:
        a, b = (t[k].reshape(s["n"], s["n"]) for k in ("A", "B"))

        def loop() -> None:
            for _ in range(s["tsteps"]):
                sweep(a, b)
                sweep(b, a)

        return loop

    def jacobi_2d_converge(t: dict[str, Any], s: dict[str, int]) -> Callable[[], Any]:
        a, b = (t[k].reshape(s["n"], s["n"]) for k in ("A", "B"))

        def loop() -> None:
            diff, step = float("inf"), 0
            while step < s["maxsteps"] and diff > CONVERGE_TOLERANCE:
                sweep(a, b)
                diff = float(lib.abs(b[1:-1, 1:-1] - a[1:-1, 1:-1]).max())
                sweep(b, a)
                step += 1

        return loop

    return {"bmm4": bmm4, "scale5": scale5, "jacobi_2d": jacobi_2d,
            "jacobi_2d_converge": jacobi_2d_converge}


def torch_peer(problem: str) -> Peer:
    """The PyTorch call of `problem` on the runner's CuPy buffers (shared through DLPack)."""
    try:
        torch: Any = importlib.import_module("torch")  # on the GPU machine only, untyped
    except ImportError as e:
        raise PeerUnavailable(f"PyTorch is not installed ({e})") from None
    call = calls(torch)[problem]

    def bind(arrays: dict[str, Any], s: dict[str, int]) -> Callable[[], None]:
        return call({k: torch.from_dlpack(v) for k, v in arrays.items()}, s)

    return Peer(PEER_NAMES[problem], bind)


def numpy_peer(problem: str) -> Peer:
    """The same calls through NumPy (the CPU device: a correctness smoke run)."""
    call = calls(np)[problem]
    return Peer(f"numpy ({PEER_NAMES[problem]})", lambda a, s: call(a, s))


def launch_overhead(rows: Sequence[Row]) -> list[str]:
    """For each Jacobi variant timed at T steps and at 1 step (same n): (whole - T x single) /
    whole, the share of the whole function's time that is not the sweeps' own (launch and
    host-program overhead), from the runner's times and, where present, pycuda's."""
    def steps(row: Row) -> int:  # a convergence loop's rows run all their steps (see above)
        return row.sizes["tsteps" if row.problem == "jacobi_2d" else "maxsteps"]

    jacobis = ("jacobi_2d", "jacobi_2d_converge")
    single = {(r.variant, r.sizes["n"]): r for r in rows
              if r.problem in jacobis and r.status == OK and steps(r) == 1}
    lines: list[str] = []
    for row in rows:
        if row.problem not in jacobis or row.status != OK or steps(row) <= 1:
            continue
        t, one = steps(row), single.get((row.variant, row.sizes["n"]))
        if one is None:
            continue
        for how, whole, each in (("cupy", row.median_ms, one.median_ms),
                                 ("pycuda", row.pycuda_ms, one.pycuda_ms)):
            if whole is None or each is None:
                continue
            share = (whole - t * each) / whole
            lines.append(f"{row.problem} {row.variant} n={row.sizes['n']} ({how}): whole "
                         f"{whole:.3f} ms, {t} x single {t * each:.3f} ms, launch overhead "
                         f"{100 * share:.1f} %")
    return lines
