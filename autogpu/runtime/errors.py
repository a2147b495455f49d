"""The errors the executors raise: in a module of their own, so that the argument checks
(`arguments`) and the memories they stage arrays into (`array_arguments`) both raise them."""

from __future__ import annotations


class KernelArgumentError(ValueError):
    """The arguments do not fit the C function's parameters (count, name, dtype, layout, size)."""


class KernelCompileError(RuntimeError):
    """The emitted CUDA source did not compile (g++ for the CPU emulation, nvcc for the GPU)."""

    def __init__(self, message: str, log: str = ""):
        super().__init__(f"{message}\n{log}".rstrip())
        self.log = log


class KernelLaunchError(RuntimeError):
    """A launch could not run (invalid configuration, too many resources) or failed while running
    (a barrier in divergent code, a failed assert)."""


class KernelEnvironmentError(KernelCompileError, KernelLaunchError):
    """The machine failed, not the kernel: no memory or memory map left (a fiber stack, a library
    that cannot be loaded), a compiler killed or out of space. The kernel is not known to be
    wrong, so a caller may retry later (with fewer programs loaded) instead of rejecting it. It is
    both a compile and a launch error, so that handlers of either still catch it."""


class LaunchDescriptionError(ValueError):
    """The launch description is malformed or disagrees with the kernels it describes."""
