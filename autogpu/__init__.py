"""autogpu: serial C loop nests in, CUDA kernels out, chosen by measuring on a real GPU."""

from typing import TYPE_CHECKING, Any

from autogpu.api import Kernel, compile
from autogpu.diagnostics import CompileError
from autogpu.version import __version__

if TYPE_CHECKING:
    from autogpu.tuner.driver import TunedKernel

__all__ = ["CompileError", "Kernel", "__version__", "compile", "tune"]


def tune(*args: Any, **kwargs: Any) -> "TunedKernel":
    """Tune a kernel on the GPU (or the CPU backend) and return the fastest verified variant as a
    callable `Kernel`; see `autogpu.tuner.tune`."""
    from autogpu.tuner import tune as _tune

    return _tune(*args, **kwargs)
