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
