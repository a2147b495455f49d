"""The peers our kernels are compared with, run on the very same device buffers.

- matmul: cuBLAS SGEMM with TF32 off, through CuPy (`cupy.cublas.gemm`, which calls
  cublasSgemm) or PyTorch (`addmm_`), computing A = 1 * B @ C + 1 * A on the column-major data.
- conv2d: `cupyx.scipy.ndimage.correlate` on the unpadded image with zero padding
  (mode='constant'); the kernel's padded input puts the image at offset t // 2, which is
  ndimage's centre for origin 0.

Each peer is written against a library module passed in (CuPy or NumPy/SciPy, whose APIs these
calls share), so the layout and index conventions are tested on the CPU. Libraries are imported
lazily: a missing one makes its peer unavailable, it does not stop the run.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# TF32 off everywhere, before any NVIDIA library is loaded: the comparison is FP32 with FP32.
os.environ["NVIDIA_TF32_OVERRIDE"] = "0"
os.environ["CUPY_TF32"] = "0"

Gemm = Callable[..., Any]  # gemm(transa, transb, a, b, out=, alpha=, beta=) as cupy.cublas.gemm


def peer_module(name: str, library: str) -> Any:
    """The module `name` of an optional peer library (absent where CI runs, and untyped: Any);
    PeerUnavailable when it is not installed."""
    try:
        return importlib.import_module(name)
    except ImportError as e:
        raise PeerUnavailable(f"{library} is not installed ({e})") from None


class PeerUnavailable(Exception):
    """The peer's library is missing or unusable here; the message says which and why."""


@dataclass(frozen=True)
class Peer:
    name: str
    # bind(arrays, sizes) -> a callable that runs the peer once on those arrays, writing the
    # problem's output array in place
    bind: Callable[[dict[str, Any], dict[str, int]], Callable[[], None]]


def sgemm_peer(name: str, gemm: Gemm) -> Peer:
    """A += B @ C through a BLAS gemm on Fortran-order views of the flat column-major buffers:
    no copy, no transpose, the leading dimensions m, p and m."""

    def bind(arrays: dict[str, Any], s: dict[str, int]) -> Callable[[], None]:
        m, n, p = s["m"], s["n"], s["p"]
        a = arrays["A"].reshape((m, n), order="F")
        b = arrays["B"].reshape((m, p), order="F")
        c = arrays["C"].reshape((p, n), order="F")
        return lambda: gemm("N", "N", b, c, out=a, alpha=1.0, beta=1.0)

    return Peer(name, bind)


def correlate_peer(name: str, ndimage: Any) -> Peer:
    """out = correlate(image, template) with zeros outside, on row-major views of the
    column-major buffers (both transposed, so the result is the transposed output, which is
    the column-major output)."""

    def bind(arrays: dict[str, Any], s: dict[str, int]) -> Callable[[], None]:
        n, m, t = s["n"], s["m"], s["t"]
        image = arrays["image"].reshape(m, n)
        window = arrays["tmpl"].reshape(t, t)
        out = arrays["out"].reshape(m, n)
        return lambda: ndimage.correlate(image, window, output=out, mode="constant", cval=0.0)

    return Peer(name, bind)


def torch_sgemm_peer() -> Peer:
    """cuBLAS SGEMM through PyTorch, TF32 off. Row-major views: A^T (n x m) += C^T (n x p) @
    B^T (p x m), the same memory as the column-major A, B, C."""
    torch = peer_module("torch", "PyTorch")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False

    def bind(arrays: dict[str, Any], s: dict[str, int]) -> Callable[[], None]:
        m, n, p = s["m"], s["n"], s["p"]
        a = torch.from_dlpack(arrays["A"]).view(n, m)
        b = torch.from_dlpack(arrays["B"]).view(p, m)
        c = torch.from_dlpack(arrays["C"]).view(n, p)
        return lambda: a.addmm_(c, b)

    return Peer("cublas-sgemm (torch)", bind)


def cupy_sgemm_peer() -> Peer:
    return sgemm_peer("cublas-sgemm (cupy)", peer_module("cupy.cublas", "CuPy").gemm)


def cupyx_correlate_peer() -> Peer:
    return correlate_peer("cupyx.correlate", peer_module("cupyx.scipy.ndimage", "cupyx.scipy"))


GPU_PEERS: dict[str, dict[str, Callable[[], Peer]]] = {
    "matmul": {"cupy": cupy_sgemm_peer, "torch": torch_sgemm_peer},
    "dmatmul": {"cupy": lambda: in_double(cupy_sgemm_peer()),
                "torch": lambda: in_double(torch_sgemm_peer())},
    "conv2d": {"cupy": cupyx_correlate_peer},
}


def torch_conv_peer() -> Peer:
    """cuDNN through `torch.nn.functional.conv2d` (TF32 off) on the unpadded image, zero
    padding t // 2 (odd t: the kernel's centre), a cross-correlation as conv2d computes it.
    conv2d returns a new tensor: the first call (the one the runner checks) copies it into
    `out`, the timed calls run conv2d alone, so the copy is not charged to cuDNN."""
    torch = peer_module("torch", "PyTorch")
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True  # cuDNN's own algorithm search, in the warm-up
    functional = torch.nn.functional

    def bind(arrays: dict[str, Any], s: dict[str, int]) -> Callable[[], None]:
        n, m, t = s["n"], s["m"], s["t"]
        image = torch.from_dlpack(arrays["image"]).view(1, 1, m, n)
        window = torch.from_dlpack(arrays["tmpl"]).view(1, 1, t, t)
        out = torch.from_dlpack(arrays["out"]).view(1, 1, m, n)
        checked: list[bool] = []

        def run() -> None:
            result = functional.conv2d(image, window, padding=t // 2)
            if not checked:
                out.copy_(result)
                checked.append(True)

        return run

    return Peer("cudnn (torch conv2d)", bind)


#: Further peers of a problem, timed in the same run beside the first (rows of their own).
GPU_EXTRA_PEERS: dict[str, tuple[Callable[[], Peer], ...]] = {"conv2d": (torch_conv_peer,)}


def extra_gpu_peers(problem: str) -> list[Callable[[], Peer]]:
    return list(GPU_EXTRA_PEERS.get(problem, ()))


def in_double(peer: Peer) -> Peer:
    """An SGEMM peer given double arrays: the same library call runs cuBLAS DGEMM."""
    return Peer(peer.name.replace("sgemm", "dgemm"), peer.bind)


def gpu_peer(problem: str, gemm_library: str = "cupy") -> Peer:
    """The GPU peer of `problem`; raises PeerUnavailable with the reason."""
    from benchmarks import gemm, remap
    from benchmarks.reductions import REDUCTIONS, torch_peer  # its problems import this module

    if problem in REDUCTIONS:
        return torch_peer(problem)
    if problem in gemm.GEMMS:
        return gemm.torch_peer(problem)
    if problem in remap.REMAP:
        return remap.torch_peer(problem)
    choices = GPU_PEERS.get(problem)
    if not choices:
        raise PeerUnavailable(f"no peer is defined for {problem}")
    make = choices.get(gemm_library if problem in ("matmul", "dmatmul") else "cupy")
    if make is None:
        raise PeerUnavailable(f"no {gemm_library} peer for {problem}")
    return make()


def numpy_gemm(transa: str, transb: str, a: Any, b: Any, out: Any, alpha: float, beta: float):
    """cupy.cublas.gemm's contract on NumPy: out = alpha * op(a) @ op(b) + beta * out."""
    op_a = a.T if transa == "T" else a
    op_b = b.T if transb == "T" else b
    out[...] = alpha * (op_a @ op_b) + beta * out
    return out


def cpu_peer(problem: str) -> Peer:
    """NumPy/SciPy stand-ins with the GPU peers' exact calls (the CPU device and the tests)."""
    from benchmarks import gemm, remap
    from benchmarks.reductions import REDUCTIONS, numpy_peer

    if problem in REDUCTIONS:
        return numpy_peer(problem)
    if problem in gemm.GEMMS:
        return gemm.numpy_peer(problem)
    if problem in remap.REMAP:
        return remap.numpy_peer(problem)
    if problem in ("matmul", "dmatmul"):
        return sgemm_peer("numpy-gemm", numpy_gemm)
    if problem == "conv2d":
        return correlate_peer("scipy.correlate", peer_module("scipy.ndimage", "SciPy"))
    raise PeerUnavailable(f"no peer is defined for {problem}")
