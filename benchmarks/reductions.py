"""The `reductions` suite's computations (issue #12): streaming reductions of 2^28 elements, a
256-bin byte histogram and the column sums of a 16384² matrix, each against the PyTorch call a
user would write instead, on the same device buffers (torch.from_dlpack of CuPy's arrays).

Every problem reads its inputs once: `min_bytes` is what it must read (and write), so the
runner's "% of roofline" is the fraction of the measured copy bandwidth reached (each is far
below the FP32 peak's intensity: memory-bound). The float64 references transcribe the C loops.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.peers import Peer, PeerUnavailable
from benchmarks.problems import Problem, uniform


class Reduction(Problem):
    """A function of examples/reductions/ (or examples/): arrays in, `output` written."""

    def __init__(self, name: str, example: str, output: str, size_names: tuple[str, ...],
                 read_bytes: Callable[[dict[str, int]], int], ops: Callable[[dict[str, int]], int],
                 make_inputs: Callable[[dict[str, int], np.random.Generator],
                                       dict[str, np.ndarray]],
                 reference: Callable[[Any, dict[str, Any], dict[str, int]], Any],
                 terms: Callable[[dict[str, int]], int]):
        super().__init__(name, example, output, size_names)
        self._read_bytes, self._ops, self._inputs = read_bytes, ops, make_inputs
        self._reference, self._terms = reference, terms

    def reduction_length(self, sizes: dict[str, int]) -> int:
        return self._terms(sizes)

    def label(self, sizes: dict[str, int]) -> str:
        return " ".join(f"{k}={v}" for k, v in sizes.items())

    def flops(self, sizes: dict[str, int]) -> int:
        return self._ops(sizes)

    def min_bytes(self, sizes: dict[str, int]) -> int:
        return self._read_bytes(sizes)

    def inputs(self, sizes: dict[str, int], rng: np.random.Generator) -> dict[str, np.ndarray]:
        return self._inputs(sizes, rng)

    def reference(self, xp: Any, arrays: dict[str, Any], sizes: dict[str, int]) -> Any:
        return self._reference(xp, arrays, sizes)


def _f64(xp: Any, a: Any) -> Any:
    return a.astype(xp.float64)


SUM = Reduction(
    "sum", "reductions/sum.c", "result", ("n",),
    read_bytes=lambda s: 4 * s["n"] + 4, ops=lambda s: s["n"],
    make_inputs=lambda s, rng: {"x": uniform(rng, s["n"]), "result": np.zeros(1, np.float32)},
    reference=lambda xp, a, s: _f64(xp, a["x"]).sum(keepdims=True), terms=lambda s: s["n"])
DOT = Reduction(
    "dot", "dot.c", "result", ("n",),
    read_bytes=lambda s: 8 * s["n"] + 4, ops=lambda s: 2 * s["n"],
    make_inputs=lambda s, rng: {"x": uniform(rng, s["n"]), "y": uniform(rng, s["n"]),
                                "result": np.zeros(1, np.float32)},
    reference=lambda xp, a, s: (_f64(xp, a["x"]) @ _f64(xp, a["y"])).reshape(1),
    terms=lambda s: s["n"])
MAX_INT = Reduction(
    "max_int", "reductions/max_int.c", "result", ("n",),
    read_bytes=lambda s: 4 * s["n"] + 4, ops=lambda s: s["n"],
    make_inputs=lambda s, rng: {
        "x": rng.integers(-2**31, 2**31 - 1, s["n"], dtype=np.int32, endpoint=True),
        "result": np.zeros(1, np.int32)},
    reference=lambda xp, a, s: _f64(xp, a["x"].max(keepdims=True)), terms=lambda s: 1)
ALL_POSITIVE = Reduction(
    "all_positive", "reductions/all_positive.c", "result", ("n",),
    read_bytes=lambda s: 4 * s["n"] + 4, ops=lambda s: s["n"],
    # all positive: every element must be read (no early exit for either side)
    make_inputs=lambda s, rng: {"x": rng.uniform(0.5, 1.0, s["n"]).astype(np.float32),
                                "result": np.zeros(1, np.int32)},
    reference=lambda xp, a, s: _f64(xp, (a["x"] > 0).all(keepdims=True)), terms=lambda s: 1)
HISTOGRAM = Reduction(
    "histogram", "reductions/histogram.c", "hist", ("n",),
    read_bytes=lambda s: s["n"] + 2 * 4 * 256, ops=lambda s: s["n"],
    make_inputs=lambda s, rng: {"data": rng.integers(0, 256, s["n"], dtype=np.uint8),
                                "hist": np.zeros(256, np.int32)},
    reference=lambda xp, a, s: _f64(xp, a["hist"] + xp.bincount(a["data"], minlength=256)),
    terms=lambda s: 1)
HISTOGRAM_K = Reduction(
    "histogram_k", "reductions/histogram_k.c", "hist", ("n", "K"),
    read_bytes=lambda s: s["n"] + 2 * 4 * s["K"], ops=lambda s: s["n"],
    make_inputs=lambda s, rng: {"data": rng.integers(0, min(s["K"], 256), s["n"],
                                                     dtype=np.uint8),
                                "hist": np.zeros(s["K"], np.int32)},
    reference=lambda xp, a, s: _f64(xp, a["hist"] + xp.bincount(a["data"], minlength=s["K"])),
    terms=lambda s: 1)
"""`histogram` with the bin count a parameter (`hist[0:K]`): dynamic shared memory."""
HISTOGRAM_WIDE = Reduction(
    "histogram_wide", "reductions/histogram_wide.c", "hist", ("n", "K"),
    read_bytes=lambda s: 4 * s["n"] + 2 * 4 * s["K"], ops=lambda s: s["n"],
    make_inputs=lambda s, rng: {"keys": rng.integers(0, s["K"], s["n"], dtype=np.int32),
                                "hist": np.zeros(s["K"], np.int32)},
    reference=lambda xp, a, s: _f64(xp, a["hist"] + xp.bincount(a["keys"], minlength=s["K"])),
    terms=lambda s: 1)
"""K bins beyond shared memory (`hist[0:K]` of int keys): per-block partials or global atomics."""
COLSUM = Reduction(
    "colsum", "reductions/colsum.c", "out", ("n",),
    read_bytes=lambda s: 4 * s["n"] * s["n"] + 4 * s["n"], ops=lambda s: s["n"] * s["n"],
    make_inputs=lambda s, rng: {"A": uniform(rng, s["n"] * s["n"]),
                                "out": np.zeros(s["n"], np.float32)},
    reference=lambda xp, a, s: _f64(xp, a["A"]).reshape(s["n"], s["n"]).sum(axis=0),
    terms=lambda s: s["n"])

REDUCTIONS: dict[str, Reduction] = {
    p.name: p for p in (SUM, DOT, MAX_INT, ALL_POSITIVE, HISTOGRAM, HISTOGRAM_K, COLSUM,
                        HISTOGRAM_WIDE)}


def _torch_calls(torch: Any) -> dict[str, Callable[[dict[str, Any], dict[str, int]], Any]]:
    """Per problem: (arrays as torch tensors, sizes) -> a call writing the output in place."""

    def sum_(t: dict[str, Any], s: dict[str, int]) -> Callable[[], Any]:
        return lambda: torch.sum(t["x"], dim=0, keepdim=True, out=t["result"])

    def dot(t: dict[str, Any], s: dict[str, int]) -> Callable[[], Any]:
        return lambda: torch.dot(t["x"], t["y"], out=t["result"].view([]))

    def max_int(t: dict[str, Any], s: dict[str, int]) -> Callable[[], Any]:
        return lambda: torch.amax(t["x"], dim=0, keepdim=True, out=t["result"])

    def all_positive(t: dict[str, Any], s: dict[str, int]) -> Callable[[], Any]:
        # torch.all(x > 0): the comparison's mask is a tensor of its own (n bytes written and
        # read again), as a PyTorch user writes it
        return lambda: t["result"].copy_(torch.all(t["x"] > 0))

    def histogram(t: dict[str, Any], s: dict[str, int]) -> Callable[[], Any]:
        return lambda: t["hist"].add_(torch.bincount(t["data"], minlength=256))

    def colsum(t: dict[str, Any], s: dict[str, int]) -> Callable[[], Any]:
        a = t["A"].view(s["n"], s["n"])
        return lambda: torch.sum(a, dim=0, out=t["out"])

    def histogram_k(t: dict[str, Any], s: dict[str, int]) -> Callable[[], Any]:
        return lambda: t["hist"].add_(torch.bincount(t["data"], minlength=s["K"]))

    def histogram_wide(t: dict[str, Any], s: dict[str, int]) -> Callable[[], Any]:
        return lambda: t["hist"].add_(torch.bincount(t["keys"], minlength=s["K"]))

    return {"sum": sum_, "dot": dot, "max_int": max_int, "all_positive": all_positive,
            "histogram": histogram, "colsum": colsum, "histogram_k": histogram_k,
            "histogram_wide": histogram_wide}


PEER_NAMES = {"sum": "torch.sum", "dot": "torch.dot", "max_int": "torch.amax",
              "all_positive": "torch.all(x > 0)", "histogram": "torch.bincount",
              "colsum": "torch.sum(dim=0)", "histogram_k": "torch.bincount",
              "histogram_wide": "torch.bincount"}


def torch_peer(problem: str) -> Peer:
    """The PyTorch call of `problem` on the runner's CuPy buffers (shared through DLPack)."""
    try:
        torch: Any = importlib.import_module("torch")  # on the GPU machine only, untyped
    except ImportError as e:
        raise PeerUnavailable(f"PyTorch is not installed ({e})") from None
    call = _torch_calls(torch)[problem]

    def bind(arrays: dict[str, Any], s: dict[str, int]) -> Callable[[], None]:
        return call({k: torch.from_dlpack(v) for k, v in arrays.items()}, s)

    return Peer(PEER_NAMES[problem], bind)


def numpy_peer(problem: str) -> Peer:
    """The same calls through NumPy (the CPU device: a correctness smoke run)."""

    def bind(a: dict[str, Any], s: dict[str, int]) -> Callable[[], None]:
        calls = {
            "sum": lambda: a["result"].__setitem__(0, a["x"].sum(dtype=np.float32)),
            "dot": lambda: a["result"].__setitem__(0, a["x"] @ a["y"]),
            "max_int": lambda: a["result"].__setitem__(0, a["x"].max()),
            "all_positive": lambda: a["result"].__setitem__(0, (a["x"] > 0).all()),
            "histogram": lambda: a["hist"].__iadd__(np.bincount(a["data"], minlength=256)
                                                    .astype(np.int32)),
            "colsum": lambda: np.sum(a["A"].reshape(s["n"], s["n"]), axis=0, out=a["out"]),
            "histogram_k": lambda: a["hist"].__iadd__(np.bincount(a["data"], minlength=s["K"])
                                                      .astype(np.int32)),
            "histogram_wide": lambda: a["hist"].__iadd__(
                np.bincount(a["keys"], minlength=s["K"]).astype(np.int32)),
        }
        return calls[problem]

    return Peer(f"numpy ({PEER_NAMES[problem]})", bind)
