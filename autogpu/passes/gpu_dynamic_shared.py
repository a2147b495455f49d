"""`gpu-dynamic-shared`: a kernel's fixed-size `__shared__` arrays carved out of its dynamic
shared memory once they pass what static arrays may take (issue #14).

CUDA caps a block's static `__shared__` arrays at 48 KiB; beyond, up to the device's opt-in
maximum (227 KiB on the H100), a kernel takes its shared memory from the launch (`extern
__shared__`) and the loader raises its `MAX_DYNAMIC_SHARED_SIZE_BYTES` (the executors and the
tuner's launchers do). Double-buffered DGEMM tiles of 128x64x16 (about 50 KB) need it.

For a kernel whose fixed-size shared arrays take more than `above` bytes, the pass gives each
`memref.alloca` of them a byte offset in the dynamic buffer (`agpu.dynamic_shared_offset`,
aligned to its element and to its `agpu.align`), records on the kernel the 16-byte-aligned end
of them (`agpu.dynamic_shared_base`: where an array reduction's run-time section, the one array
of run-time length, starts), and adds those bytes to the `dynamicSharedMemorySize` of every
launch of the kernel. The cuda target prints the arrays as pointers into the buffer; the arrays'
accesses do not change. Run it last: after every pass that allocates or resizes shared arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, gpu, memref
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, SymbolRefAttr, i32
from xdsl.rewriter import InsertPoint, Rewriter

from autogpu.dialects.agpu_vector import ALIGN_ATTR
from autogpu.passes.convert_agpu_to_gpu.reductions import SHARED_MEMORY_SPACE
from autogpu.passes.gpu_cache_shared.footprint import element_bytes
from autogpu.passes.options import DeclaredOptionsPass, at_least, option
from autogpu.target.cuda_limits import (
    DYNAMIC_BASE_ATTR,
    DYNAMIC_OFFSET_ATTR,
    SHARED_BYTES_PER_BLOCK,
)

BUFFER_ALIGNMENT = 16
"""The `extern __shared__` buffer's `__align__`: the base of an array of run-time length."""


def _fixed_shared(kernel: gpu.FuncOp) -> list[memref.AllocaOp]:
    """The kernel's `__shared__` arrays of fixed size, in program order."""
    found: list[memref.AllocaOp] = []
    for op in kernel.walk():
        if not isinstance(op, memref.AllocaOp) or op.dynamic_sizes:
            continue
        if op.memref.type.memory_space == SHARED_MEMORY_SPACE:
            found.append(op)
    return found


def _bytes(alloca: memref.AllocaOp) -> int:
    type = alloca.memref.type
    assert isinstance(type, MemRefType)
    count = 1
    for size in type.get_shape():
        count *= size
    return count * element_bytes(alloca.memref)


def _alignment(alloca: memref.AllocaOp) -> int:
    """An array's element size, or the alignment vector accesses asked for (`agpu.align`)."""
    align = alloca.attributes.get(ALIGN_ATTR)
    asked = align.value.data if isinstance(align, IntegerAttr) else 1
    return max(element_bytes(alloca.memref), asked)


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def carve(allocas: list[memref.AllocaOp]) -> int:
    """Sets each array's offset in the dynamic buffer; the 16-byte-aligned end."""
    end = 0
    for alloca in allocas:
        end = _round_up(end, _alignment(alloca))
        alloca.attributes[DYNAMIC_OFFSET_ATTR] = IntegerAttr(end, i32)
        end += _bytes(alloca)
    return _round_up(end, BUFFER_ALIGNMENT)


def _add_to_launches(module: ModuleOp, kernel: SymbolRefAttr, extra: int) -> None:
    """`dynamicSharedMemorySize` of each launch of `kernel` grows by `extra` bytes."""
    launches = [op for op in module.walk()
                if isinstance(op, gpu.LaunchFuncOp) and op.kernel == kernel]
    for launch in launches:
        constant = arith.ConstantOp(IntegerAttr(extra, i32))
        constant.result.name_hint = "tile_bytes"
        added: list[arith.ConstantOp | arith.AddiOp] = [constant]
        size = constant.result
        if launch.dynamicSharedMemorySize is not None:
            total = arith.AddiOp(launch.dynamicSharedMemorySize, constant.result)
            total.result.name_hint = "shared_bytes"
            added.append(total)
            size = total.result
        Rewriter.insert_op(added, InsertPoint.before(launch))
        replacement = gpu.LaunchFuncOp(
            launch.kernel, [launch.gridSizeX, launch.gridSizeY, launch.gridSizeZ],
            [launch.blockSizeX, launch.blockSizeY, launch.blockSizeZ],
            None if launch.clusterSizeX is None else
            [launch.clusterSizeX, launch.clusterSizeY, launch.clusterSizeZ],  # pyright: ignore[reportArgumentType] (all three are given together)
            kernelOperands=list(launch.kernelOperands),
            async_launch=launch.asyncToken is not None,
            asyncDependencies=list(launch.asyncDependencies),
            dynamicSharedMemorySize=size)
        replacement.attributes.update(launch.attributes)
        Rewriter.replace_op(launch, replacement)


@dataclass(frozen=True)
class GpuDynamicSharedPass(DeclaredOptionsPass):
    """Fixed-size `__shared__` arrays beyond `above` bytes moved to dynamic shared memory."""

    name = "gpu-dynamic-shared"

    above: int = option(
        SHARED_BYTES_PER_BLOCK, doc="Bytes of fixed-size `__shared__` arrays a kernel keeps "
        "static; a kernel whose arrays take more carves them all out of its dynamic shared "
        "memory (the launch passes their bytes). 48 KiB is CUDA's static limit; 0 moves every "
        "kernel's arrays.", check=at_least(0, "at least 0 bytes"))

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for module in [m for m in op.walk() if isinstance(m, gpu.ModuleOp)]:
            for kernel in [k for k in module.walk() if isinstance(k, gpu.FuncOp)]:
                allocas = _fixed_shared(kernel)
                if not allocas or sum(_bytes(a) for a in allocas) <= self.above:
                    continue
                end = carve(allocas)
                kernel.attributes[DYNAMIC_BASE_ATTR] = IntegerAttr(end, i32)
                symbol = SymbolRefAttr(module.sym_name.data, [kernel.sym_name.data])
                _add_to_launches(op, symbol, end)
