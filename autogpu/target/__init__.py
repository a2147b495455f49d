"""Backends: the `cuda` target (CUDA C from gpu + scf + arith + math + memref), execution of the
emitted kernels on the CPU with CUDA semantics, and on the GPU through pycuda."""

from collections.abc import Callable

from xdsl.utils.target import Target


def get_all_targets() -> dict[str, Callable[[], type[Target]]]:
    """Return the targets autogpu adds to xDSL's."""

    def get_cuda():
        from autogpu.target.cuda_target import CudaTarget

        return CudaTarget

    return {"cuda": get_cuda}
