"""The CUDA target's limits, the one home of facts that the passes (block shapes, shared-memory
tiles), the executors (launch checks) and the tuner (its default device limits) all rely on.
Plain numbers, so any layer may import them without pulling in the target."""

MAX_BLOCK = (1024, 1024, 64)
"""Threads per block along x, y, z (compute capability 3.0 and later)."""
MAX_THREADS_PER_BLOCK = 1024
"""Threads per block in all."""
MAX_GRID = (2**31 - 1, 65535, 65535)
"""Blocks per grid along x, y, z."""
SHARED_BYTES_PER_BLOCK = 48 * 1024
"""Bytes of shared memory a block gets without opting in (every compute capability): the
static `__shared__` arrays a kernel may declare, and the dynamic size above which a launch must
raise the kernel's limit."""
REGISTERS_PER_SM = 64 * 1024
"""32-bit registers of a multiprocessor (compute capability 5.0 to 9.0): `__launch_bounds__(T,
B)` caps a thread's registers at REGISTERS_PER_SM / (T * B)."""
REGISTERS_PER_THREAD = 255
"""32-bit registers one thread may hold (compute capability 3.5 and later); what it needs beyond
them spills to local memory."""
MIN_BLOCKS_ATTR = "agpu.min_blocks_per_sm"
"""Attribute of a `gpu.func` kernel: the second argument of its `__launch_bounds__`."""
DYNAMIC_OFFSET_ATTR = "agpu.dynamic_shared_offset"
"""Attribute of a fixed-size `__shared__` `memref.alloca` (gpu-dynamic-shared): the byte offset
of its array in the block's dynamic shared memory, which the cuda target prints as a pointer
into the `extern __shared__` buffer instead of a static array."""
DYNAMIC_BASE_ATTR = "agpu.dynamic_shared_base"
"""Attribute of a `gpu.func` kernel whose arrays gpu-dynamic-shared moved (16-byte aligned):
the bytes they take at the start of the dynamic buffer, where an array of run-time length (an
array reduction's section) begins."""
