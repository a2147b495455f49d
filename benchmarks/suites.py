"""Named benchmark suites: which kernel variants run at which sizes.

A variant is an example file compiled through a pipeline string, exactly what
`autogpu.compile(example, pipeline=...)` and `autogpu-opt -p ...` take. A variant whose passes
or options do not exist yet is still listed: the runner reports it as unavailable, so a suite
runs as the passes land.

The `paper` suite follows the AutoGPU paper's progression (its Tables 4.4, 4.8, 4.12, 4.16):
MATMUL from the vanilla mapping through staging, caching and unrolling, with bounds guards at a
size that is no multiple of the tiles; CONV 5x5 and 11x11 from vanilla to the tuned shape.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from autogpu.api import pipeline_spec
from benchmarks.problems import CONV2D, DMATMUL, MATMUL, Problem


@dataclass(frozen=True)
class Variant:
    name: str  # e.g. "mm_autogpu"
    problem: Problem
    pipeline: str  # an autogpu-opt pipeline, options included
    description: str
    # the same transformations spelled with the individual passes, tried in order when the
    # pipeline's passes do not exist yet (the first whose passes and options all exist runs)
    fallbacks: tuple[str, ...] = ()

    @property
    def example(self) -> str:
        return self.problem.example

    @property
    def candidates(self) -> tuple[str, ...]:
        return (self.pipeline, *self.fallbacks)


@dataclass(frozen=True)
class Case:
    """One variant at one size."""

    variant: Variant
    sizes: tuple[tuple[str, int], ...]  # hashable; see `size_dict`

    @property
    def size_dict(self) -> dict[str, int]:
        return dict(self.sizes)


def sizes_of(problem: Problem, *values: int) -> tuple[tuple[str, int], ...]:
    return tuple(zip(problem.size_names, values, strict=True))


# The pass options of the AutoGPU transformations, in one place. They follow the options the
# lead announced for `autogpu-optimize` (staging, caching, unrolling, guards, block shape); a
# name the pass does not have shows up in the table as "unavailable: ... has no option ...".
def vanilla(block_size: int) -> str:
    return pipeline_spec("autogpu-vanilla", {"block_size": block_size})


def optimize(**options: object) -> str:
    return pipeline_spec("autogpu-optimize", options)


def sized(**sizes: int) -> str:
    """The `sizes` option of autogpu-optimize: the sizes compiled into the kernel, so guards the
    grid proves unnecessary disappear (the paper's unguarded kernels at 2048) and constant loops
    unroll fully."""
    return ",".join(f"{k}={v}" for k, v in sizes.items())  # pipeline_spec quotes it


MM_STAGED = dict(block_size=256, cache=False)
MM_CACHED = dict(block_size=256)
MM_AUTOGPU = dict(block_size=256, unroll_x=2, unroll_y=8, unroll_serial=16, unroll_loops="k")


def conv_cached(n: int, t: int) -> str:
    return optimize(sizes=sized(n=n, m=n, t=t), block_size=256)


def conv_autogpu(n: int, t: int) -> str:
    return optimize(sizes=sized(n=n, m=n, t=t), block_size=32, unroll_y=8)


def matmul_variants(n: int, cond_n: int) -> dict[str, Variant]:
    """The paper's MATMUL variants compiled for n (a multiple of their tiles: no guards) and
    cond_n (no multiple: the `mm_cond_*` kernels, guarded where the grid overhangs)."""
    even, odd = sized(m=n, n=n, p=n), sized(m=cond_n, n=cond_n, p=cond_n)
    return {v.name: v for v in (
        Variant("mm_0", MATMUL, vanilla(256), "autogpu-vanilla: one thread per A element"),
        Variant("mm_1", MATMUL, optimize(sizes=even, **MM_STAGED),
                "A's element staged in a register"),
        Variant("mm_2", MATMUL, optimize(sizes=even, **MM_CACHED),
                "staged + C's column cached in shared memory"),
        Variant("mm_autogpu", MATMUL, optimize(sizes=even, **MM_AUTOGPU),
                "block 256, unroll (2, 8), k x16"),
        Variant("mm_cond_1", MATMUL, optimize(sizes=odd, **MM_STAGED),
                "mm_1 with bounds guards"),
        Variant("mm_cond_2", MATMUL, optimize(sizes=odd, **MM_CACHED),
                "mm_2 with bounds guards"),
        Variant("mm_cond_autogpu", MATMUL, optimize(sizes=odd, **MM_AUTOGPU),
                "mm_autogpu with bounds guards"),
    )}


MATMUL_VARIANTS = matmul_variants(2048, 3000)


def conv_variants(t: int, n: int = 8192) -> dict[str, Variant]:
    prefix = f"conv{t}"
    return {
        v.name: v
        for v in (
            Variant(f"{prefix}_0", CONV2D, vanilla(256), "autogpu-vanilla: one thread per pixel"),
            Variant(f"{prefix}_1", CONV2D, conv_cached(n, t), "staged + input window cached"),
            Variant(f"{prefix}_autogpu", CONV2D, conv_autogpu(n, t),
                    "block 32x1, j x8, template unrolled"),
        )
    }


def paper(quick: bool = False) -> list[Case]:
    """The paper's progression. Each optimised variant is compiled for its case's sizes
    (autogpu-optimize's `sizes`): at 2048 and 8192 the grid covers the domain exactly and the
    kernels have no guards, at 3000 (`mm_cond_*`) they keep the guards they need."""
    mm_even, mm_odd, conv_n = (512, 500, 1024) if quick else (2048, 3000, 8192)
    mm = matmul_variants(mm_even, mm_odd)
    cases = [Case(mm[name], sizes_of(MATMUL, mm_even, mm_even, mm_even))
             for name in ("mm_0", "mm_1", "mm_2", "mm_autogpu")]
    cases += [Case(mm[name], sizes_of(MATMUL, mm_odd, mm_odd, mm_odd))
              for name in ("mm_0", "mm_cond_1", "mm_cond_2", "mm_cond_autogpu")]
    for t in (5, 11):
        cases += [Case(v, sizes_of(CONV2D, conv_n, conv_n, t))
                  for v in conv_variants(t, conv_n).values()]
    return cases


#: What `autogpu-tune` picked on the H100 (default space, general sizes: nothing compiled in),
#: timed here by the same harness as the peers; docs/h100-findings.md has the runs.
MM_TUNED_H100 = dict(block_size=512, unroll_x=2, unroll_y=8, unroll_serial=16, cache=True)
CONV_TUNED_H100 = dict(block_size=128, unroll_y=8, cache=False)
#: ... and with `--specialize` (n, m and t compiled in).
CONV_TUNED_SPECIALISED_H100 = dict(block_size=128, unroll_y=4, cache=True)


def tuning(quick: bool = False) -> list[Case]:
    """The sizes `autogpu-tune` is reported at (MATMUL 4096³, CONV 5x5 at 8192²): the vanilla
    and the paper-structure kernels with their peers, and the tuner's picks, side by side."""
    mm_n, conv_n = (512, 1024) if quick else (4096, 8192)
    mm = matmul_variants(mm_n, mm_n + 1)
    conv = conv_variants(5, conv_n)
    mm_tuned = Variant("mm_tuned", MATMUL, optimize(**MM_TUNED_H100),
                       "autogpu-tune's pick on the H100, general sizes")
    conv_tuned = Variant("conv5_tuned", CONV2D, optimize(**CONV_TUNED_H100),
                         "autogpu-tune's pick on the H100, general sizes")
    conv_tuned_specialised = Variant(
        "conv5_tuned_spec", CONV2D,
        optimize(sizes=sized(n=conv_n, m=conv_n, t=5), **CONV_TUNED_SPECIALISED_H100),
        "autogpu-tune --specialize's pick on the H100")
    mm_sizes, conv_sizes = sizes_of(MATMUL, mm_n, mm_n, mm_n), sizes_of(CONV2D, conv_n, conv_n, 5)
    return [Case(v, mm_sizes) for v in (mm["mm_0"], mm["mm_autogpu"], mm_tuned)] \
        + [Case(v, conv_sizes) for v in (conv["conv5_0"], conv["conv5_autogpu"], conv_tuned,
                                         conv_tuned_specialised)]


def tiled(**options: object) -> str:
    return pipeline_spec("autogpu-tiled", options)


#: The fragment options of issue #14's third step: each thread's replicas consecutive, and
#: the vector accesses that makes possible (fragment reads, whole-tile copies).
BLOCKED = dict(unroll_distribution="blocked")
VECTORS = dict(vector_width=4, cache_copy_width=4)
#: Shared-memory budgets of the H100's opt-in maximum (227 KiB), as the tuner sets them there:
#: tiles past 48 KiB live in dynamic shared memory (gpu-dynamic-shared, issue #14).
DYNAMIC = dict(shared_budget=232448, pipeline_shared_budget=232448)

#: autogpu-tiled configurations (block_size x block_y threads, tm x tn per thread, bk deep):
#: name, options, description. Whole tiles are versioned by default (cache_full_tiles):
#: `_guarded` rows are the first step's kernels, every tile tested element by element.
MM_TILED: tuple[tuple[str, dict[str, Any], str], ...] = (
    ("mm_tiled_128x128x8_guarded", dict(cache_full_tiles=False),
     "block tile 128x128x8: 16x16 threads of 8x8, guarded tiles"),
    ("mm_tiled_128x128x8_u8_guarded", dict(cache_full_tiles=False, unroll_serial=8,
                                           unroll_loops="k"),
     "128x128x8, guarded tiles, the loop over a tile unrolled"),
    ("mm_tiled_128x128x8", dict(), "block tile 128x128x8: 16x16 threads of 8x8"),
    ("mm_tiled_128x128x16", dict(bk=16), "block tile 128x128x16: 16x16 threads of 8x8"),
    ("mm_tiled_128x128x16_mb2", dict(bk=16, min_blocks=2),
     "128x128x16, two blocks per multiprocessor (128 registers)"),
    ("mm_tiled_128x64x8", dict(block_size=32, block_y=8, tm=4, tn=8),
     "block tile 128x64x8: 32x8 threads of 4x8"),
    ("mm_tiled_64x64x16", dict(block_size=16, block_y=8, tm=4, tn=8, bk=16),
     "block tile 64x64x16: 16x8 threads of 4x8"),
    # issue #14, third step: blocked replicas, tiles laid out for their readers, vectors
    ("mm_tiled_blocked_mb2", dict(bk=16, min_blocks=2, **BLOCKED),
     "128x128x16, two blocks per SM, blocked replicas (contiguous fragments)"),
    ("mm_tiled_blocked_v4_mb2", dict(bk=16, min_blocks=2, **BLOCKED, vector_width=4),
     "+ float4 fragment reads"),
    ("mm_tiled_blocked_v4c4_mb2", dict(bk=16, min_blocks=2, **BLOCKED, **VECTORS),
     "+ float4 whole-tile copies"),
    ("mm_tiled_blocked_v4c4p4_mb2", dict(bk=16, min_blocks=2, **BLOCKED, **VECTORS, cache_pad=4),
     "+ transposed tile rows padded by 4"),
    ("mm_tiled_blocked_v4c4p4", dict(bk=16, **BLOCKED, **VECTORS, cache_pad=4),
     "blocked, vectors, padded, one block per SM"),
    ("mm_tiled_blocked_v4c4p2_mb2", dict(bk=16, min_blocks=2, **BLOCKED, **VECTORS, cache_pad=2),
     "transposed tile rows padded by 2 (its fragment reads then float4 where aligned)"),
    # issue #14, pipelining: double-buffered shared tiles (gpu-pipeline-tiles)
    ("mm_tiled_blocked_v4c4p4_mb2_s2", dict(bk=16, min_blocks=2, **BLOCKED, **VECTORS,
                                            cache_pad=4, stages=2),
     "blocked, vectors, padded, two blocks per SM, double-buffered tiles"),
    ("mm_tiled_blocked_v4c4p4_s2", dict(bk=16, **BLOCKED, **VECTORS, cache_pad=4, stages=2),
     "blocked, vectors, padded, one block per SM, double-buffered tiles"),
    ("mm_tiled_blocked_v4c4p2_mb2_s2", dict(bk=16, min_blocks=2, **BLOCKED, **VECTORS,
                                            cache_pad=2, stages=2),
     "padded by 2, two blocks per SM, double-buffered tiles"),
    ("mm_tiled_blocked_v4c4p4_mb2_sw", dict(bk=16, min_blocks=2, **BLOCKED, **VECTORS,
                                            cache_pad=4, swizzle=True),
     "two blocks per SM, the unpadded tile XOR-swizzled"),
    ("mm_tiled_blocked_v4c4p4_mb2_s2sw", dict(bk=16, min_blocks=2, **BLOCKED, **VECTORS,
                                              cache_pad=4, stages=2, swizzle=True),
     "two blocks per SM, double-buffered, swizzled"),
    ("mm_tiled_blocked_v4c4p4_s2sw", dict(bk=16, **BLOCKED, **VECTORS, cache_pad=4, stages=2,
                                          swizzle=True),
     "one block per SM, double-buffered, swizzled"),
    ("mm_tiled_default", dict(), "autogpu-tiled's defaults (128x128x16, blocked, vectors, "
     "padded, swizzled, one buffer)"),
    # issue #14, warp tiles (gpu-warp-tile): each warp an 8 x 4 or 4 x 8 sub-tile of threads
    ("mm_tiled_blocked_v4c4p4_mb2_s2sw_w8", dict(bk=16, min_blocks=2, **BLOCKED, **VECTORS,
                                                 cache_pad=4, stages=2, swizzle=True,
                                                 warp_x=8),
     "two blocks per SM, double-buffered, swizzled, warps of 8 x 4 threads"),
    ("mm_tiled_blocked_v4c4p4_mb2_s2sw_w4", dict(bk=16, min_blocks=2, **BLOCKED, **VECTORS,
                                                 cache_pad=4, stages=2, swizzle=True,
                                                 warp_x=4),
     "two blocks per SM, double-buffered, swizzled, warps of 4 x 8 threads"),
    ("mm_tiled_blocked_v4c4p4_s2sw_w8", dict(bk=16, **BLOCKED, **VECTORS, cache_pad=4,
                                             stages=2, swizzle=True, warp_x=8),
     "one block per SM, double-buffered, swizzled, warps of 8 x 4 threads"),
    ("mm_tiled_blocked_v4c4p4_s2sw_w4", dict(bk=16, **BLOCKED, **VECTORS, cache_pad=4,
                                             stages=2, swizzle=True, warp_x=4),
     "one block per SM, double-buffered, swizzled, warps of 4 x 8 threads"),
    # ... and the next tiles copied by cp.async (no registers staged)
    ("mm_tiled_blocked_v4c4p4_mb2_s2sw_w4_cp", dict(bk=16, min_blocks=2, **BLOCKED, **VECTORS,
                                                    cache_pad=4, stages=2, swizzle=True,
                                                    warp_x=4, async_copy=True),
     "two blocks per SM, double-buffered by cp.async, swizzled, 4 x 8 warps"),
    ("mm_tiled_blocked_v4c4p4_s2sw_w4_cp", dict(bk=16, **BLOCKED, **VECTORS, cache_pad=4,
                                                stages=2, swizzle=True, warp_x=4,
                                                async_copy=True),
     "min_blocks 0, double-buffered by cp.async, swizzled, 4 x 8 warps"),
)
#: The same for general sizes (not compiled in), the case full-tile versioning is for.
MM_GENERAL: tuple[tuple[str, dict[str, Any], str], ...] = (
    ("mm_tiled_general_guarded", dict(cache_full_tiles=False), "128x128x8, guarded tiles"),
    ("mm_tiled_general", dict(), "128x128x8"),
    ("mm_general_128x128x16", dict(bk=16), "128x128x16"),
    ("mm_general_128x128x8_mb2", dict(min_blocks=2), "128x128x8, two blocks per SM"),
    ("mm_general_128x128x16_mb2", dict(bk=16, min_blocks=2), "128x128x16, two blocks per SM"),
    ("mm_general_128x64x8", dict(block_size=32, block_y=8, tm=4, tn=8),
     "128x64x8 (32x8 threads of 4x8)"),
    ("mm_general_blocked_v4c4p4_mb2", dict(bk=16, min_blocks=2, **BLOCKED, **VECTORS,
                                           cache_pad=4),
     "128x128x16, two blocks per SM, blocked replicas, float4 reads and copies, padded"),
    ("mm_general_blocked_v4c4p4_mb2_s2", dict(bk=16, min_blocks=2, **BLOCKED, **VECTORS,
                                              cache_pad=4, stages=2),
     "128x128x16, two blocks per SM, blocked, vectors, padded, double-buffered tiles"),
    ("mm_general_blocked_v4c4p4_s2", dict(bk=16, **BLOCKED, **VECTORS, cache_pad=4, stages=2),
     "128x128x16, one block per SM, blocked, vectors, padded, double-buffered tiles"),
    ("mm_general_blocked_v4c4p4_mb2_sw", dict(bk=16, min_blocks=2, **BLOCKED, **VECTORS,
                                              cache_pad=4, swizzle=True),
     "128x128x16, two blocks per SM, the unpadded tile XOR-swizzled"),
    ("mm_general_blocked_v4c4p4_mb2_s2sw", dict(bk=16, min_blocks=2, **BLOCKED, **VECTORS,
                                                cache_pad=4, stages=2, swizzle=True),
     "128x128x16, two blocks per SM, double-buffered, swizzled"),
    ("mm_general_blocked_v4c4p4_s2sw", dict(bk=16, **BLOCKED, **VECTORS, cache_pad=4,
                                            stages=2, swizzle=True),
     "128x128x16, one block per SM, double-buffered, swizzled"),
    ("mm_general_blocked_v4c4p4_mb2_s2sw_i32", dict(bk=16, min_blocks=2, **BLOCKED, **VECTORS,
                                                    cache_pad=4, stages=2, swizzle=True,
                                                    narrow_indices=True),
     "128x128x16, two blocks per SM, double-buffered, swizzled, 32-bit indices"),
    ("mm_general_blocked_v4c4p4_s2sw_i32", dict(bk=16, **BLOCKED, **VECTORS, cache_pad=4,
                                                stages=2, swizzle=True, narrow_indices=True),
     "128x128x16, one block per SM, double-buffered, swizzled, 32-bit indices"),
    ("mm_general_default", dict(), "autogpu-tiled's defaults"),
    ("mm_general_default_i32", dict(narrow_indices=True), "autogpu-tiled's defaults, 32-bit "
     "indices"),
    # issue #14: the same tiles in dynamic shared memory (is "always dynamic" as fast?), and
    # bk 32 doubled (66.5 KB, dynamic)
    ("mm_general_blocked_v4c4p4_s2sw_i32_dyn", dict(bk=16, **BLOCKED, **VECTORS, cache_pad=4,
                                                    stages=2, swizzle=True,
                                                    narrow_indices=True,
                                                    dynamic_shared_above=0),
     "128x128x16, one block per SM, double-buffered, swizzled, 32-bit indices, tiles in "
     "dynamic shared memory"),
    ("mm_general_blocked_v4c4p4_s2sw_i32_bk32", dict(bk=32, **BLOCKED, **VECTORS, cache_pad=4,
                                                     stages=2, swizzle=True,
                                                     narrow_indices=True, **DYNAMIC),
     "128x128x32, one block per SM, double-buffered (66.5 KB dynamic), swizzled, 32-bit "
     "indices"),
    ("mm_general_blocked_v4c4p4_s2sw_i32_w8", dict(bk=16, **BLOCKED, **VECTORS, cache_pad=4,
                                                   stages=2, swizzle=True, narrow_indices=True,
                                                   warp_x=8),
     "128x128x16, one block per SM, double-buffered, swizzled, 32-bit indices, 8 x 4 warps"),
    ("mm_general_blocked_v4c4p4_s2sw_i32_w4", dict(bk=16, **BLOCKED, **VECTORS, cache_pad=4,
                                                   stages=2, swizzle=True, narrow_indices=True,
                                                   warp_x=4),
     "128x128x16, one block per SM, double-buffered, swizzled, 32-bit indices, 4 x 8 warps"),
    ("mm_general_blocked_v4c4p4_mb2_s2sw_i32_w8", dict(bk=16, min_blocks=2, **BLOCKED,
                                                       **VECTORS, cache_pad=4, stages=2,
                                                       swizzle=True, narrow_indices=True,
                                                       warp_x=8),
     "128x128x16, two blocks per SM, double-buffered, swizzled, 32-bit indices, 8 x 4 warps"),
    ("mm_general_blocked_v4c4p4_s2sw_i32_w4_cp", dict(bk=16, **BLOCKED, **VECTORS, cache_pad=4,
                                                      stages=2, swizzle=True,
                                                      narrow_indices=True, warp_x=4,
                                                      async_copy=True),
     "128x128x16, one block per SM, double-buffered by cp.async, swizzled, 32-bit indices, "
     "4 x 8 warps"),
)
DMM_GENERAL: tuple[tuple[str, dict[str, Any], str], ...] = (
    ("dmm_tiled_general_guarded", dict(cache_full_tiles=False), "128x128x8, guarded tiles"),
    ("dmm_tiled_general", dict(), "128x128x8"),
    ("dmm_general_64x64x8", dict(tm=4, tn=4), "64x64x8 (16x16 threads of 4x4)"),
    ("dmm_general_64x64x8_mb2", dict(tm=4, tn=4, min_blocks=2),
     "64x64x8, two blocks per SM"),
    ("dmm_general_128x64x8_mb2", dict(block_size=32, block_y=8, tm=4, tn=8, min_blocks=2),
     "128x64x8 (32x8 threads of 4x8), two blocks per SM"),
    ("dmm_general_128x64x8_blocked_mb2", dict(block_size=32, block_y=8, tm=4, tn=8,
                                              min_blocks=2, **BLOCKED, **VECTORS, cache_pad=4),
     "128x64x8, two blocks per SM, blocked replicas, double2 reads and copies, padded"),
    ("dmm_general_64x64x8_blocked", dict(tm=4, tn=4, **BLOCKED, **VECTORS, cache_pad=4),
     "64x64x8 (16x16 threads of 4x4), blocked replicas, double2 reads and copies, padded"),
    ("dmm_general_128x64x8_blocked_mb2_s2", dict(block_size=32, block_y=8, tm=4, tn=8,
                                                 min_blocks=2, **BLOCKED, **VECTORS,
                                                 cache_pad=4, stages=2),
     "128x64x8, two blocks per SM, blocked, double2, padded, double-buffered tiles"),
    ("dmm_general_128x64x8_blocked_mb2_sw", dict(block_size=32, block_y=8, tm=4, tn=8,
                                                 min_blocks=2, **BLOCKED, **VECTORS,
                                                 cache_pad=4, swizzle=True),
     "128x64x8, two blocks per SM, blocked, double2, padded, swizzled"),
    ("dmm_general_128x64x8_blocked_mb2_bk8_s2", dict(block_size=32, block_y=8, tm=4, tn=8,
                                                     bk=8, min_blocks=2, **BLOCKED, **VECTORS,
                                                     cache_pad=4, stages=2),
     "128x64x8 (bk 8: doubled tiles within 48 KiB), two blocks per SM, double-buffered"),
    ("dmm_general_128x64x8_blocked_mb2_bk8", dict(block_size=32, block_y=8, tm=4, tn=8,
                                                  bk=8, min_blocks=2, **BLOCKED, **VECTORS,
                                                  cache_pad=4),
     "128x64x8 (bk 8), two blocks per SM, single-buffered"),
    ("dmm_general_default", dict(), "autogpu-tiled's defaults"),
    ("dmm_general_default_i32", dict(narrow_indices=True), "autogpu-tiled's defaults, 32-bit "
     "indices"),
    # issue #14, tiles past 48 KiB in dynamic shared memory (gpu-dynamic-shared)
    ("dmm_general_128x64x16_blocked_sw", dict(block_size=32, block_y=8, tm=4, tn=8, bk=16,
                                              **BLOCKED, **VECTORS, cache_pad=4, swizzle=True),
     "128x64x16, one block per SM, blocked, double2, padded, swizzled (25.5 KB static)"),
    ("dmm_general_128x64x16_blocked_sw_s2", dict(block_size=32, block_y=8, tm=4, tn=8, bk=16,
                                                 **BLOCKED, **VECTORS, cache_pad=4,
                                                 swizzle=True, stages=2, **DYNAMIC),
     "128x64x16, one block per SM, double-buffered (51.1 KB dynamic)"),
    ("dmm_general_128x64x16_blocked_mb2_sw_s2", dict(block_size=32, block_y=8, tm=4, tn=8,
                                                     bk=16, min_blocks=2, **BLOCKED, **VECTORS,
                                                     cache_pad=4, swizzle=True, stages=2,
                                                     **DYNAMIC),
     "128x64x16, two blocks per SM, double-buffered (51.1 KB dynamic)"),
    ("dmm_general_128x64x32_blocked_mb2_sw", dict(block_size=32, block_y=8, tm=4, tn=8, bk=32,
                                                  min_blocks=2, **BLOCKED, **VECTORS,
                                                  cache_pad=4, swizzle=True, **DYNAMIC),
     "128x64x32, two blocks per SM, single-buffered (51.1 KB dynamic)"),
    ("dmm_general_128x64x32_blocked_sw_s2", dict(block_size=32, block_y=8, tm=4, tn=8, bk=32,
                                                 **BLOCKED, **VECTORS, cache_pad=4,
                                                 swizzle=True, stages=2, **DYNAMIC),
     "128x64x32, one block per SM, double-buffered (100.3 KB dynamic)"),
    ("dmm_general_128x128x16_blocked_sw_s2", dict(bk=16, **BLOCKED, **VECTORS, cache_pad=4,
                                                  swizzle=True, stages=2, **DYNAMIC),
     "128x128x16 (16x16 threads of 8x8), double-buffered (66.5 KB dynamic)"),
    ("dmm_general_64x64x16_blocked_sw_s2", dict(tm=4, tn=4, bk=16, **BLOCKED, **VECTORS,
                                                cache_pad=4, swizzle=True, stages=2),
     "64x64x16 (16x16 threads of 4x4), double-buffered (33.7 KB static)"),
)

#: Rows timed again with gpu-narrow-indices (`_i32`: the index arithmetic that provably fits
#: in 32 bits computed in int), so that a run measures what it gives.
NARROW_INDICES = ("mm_tiled_128x128x16_mb2", "mm_general_128x128x16_mb2", "mm_general_128x64x8",
                "dmm_general_64x64x8", "dmm_general_128x64x8_mb2")


def _with_narrow_indices(rows: Iterable[tuple[str, dict[str, Any], str]]
                         ) -> Iterator[tuple[str, dict[str, Any], str]]:
    """`rows` and, after each named in NARROW_INDICES, the same with narrow_indices on."""
    for name, options, description in rows:
        yield name, options, description
        if name in NARROW_INDICES:
            yield (f"{name}_i32", {**options, "narrow_indices": True},
                   description + ", 32-bit indices")


def _as_named(name: str, options: dict[str, Any]) -> dict[str, Any]:
    """A row's options as it names them: swizzle (on by default since the pipelining step of
    issue #14) and warp tiles (since the warp-tiling step) only where the row sets them, so
    earlier rows keep measuring the same kernels;
    `_default` rows take every default of autogpu-tiled."""
    return options if "default" in name else {"swizzle": False, "warp_x": 0, **options}


def tiles(quick: bool = False) -> list[Case]:
    """Block tiles of both operands and thread register tiles (autogpu-tiled, issue #14) at
    2048³ and 4096³ with the sizes compiled in, beside the paper-structure kernel, and for
    general sizes (not compiled in) also at 3000³ (no multiple of any tile), SGEMM and DGEMM,
    cuBLAS in the same run."""
    cases: list[Case] = []
    for n in ((512,) if quick else (2048, 4096, 3000)):
        sizes = sizes_of(MATMUL, n, n, n)
        if n % 128 == 0:
            mm = matmul_variants(n, n + 1)
            cases.append(Case(mm["mm_autogpu"], sizes))
            for name, options, description in _with_narrow_indices(MM_TILED):
                variant = Variant(name, MATMUL, tiled(sizes=sized(m=n, n=n, p=n),
                                                      **_as_named(name, options)),
                                  description + ", sizes compiled in")
                cases.append(Case(variant, sizes))
        for name, options, description in _with_narrow_indices(MM_GENERAL):
            variant = Variant(name, MATMUL, tiled(**_as_named(name, options)),
                              description + ", general sizes")
            cases.append(Case(variant, sizes))
        for name, options, description in _with_narrow_indices(DMM_GENERAL):
            variant = Variant(name, DMATMUL, tiled(**_as_named(name, options)),
                              description + ", general sizes")
            cases.append(Case(variant, sizes_of(DMATMUL, n, n, n)))
    return cases


#: Scalar-reduction kernels (issue #12): block x unroll_x tiles per thread, and reduce_blocks,
#: the x grid (0: one block per tile; else a grid-stride loop over the rest), name: options.
REDUCE_SHAPES = {
    "b256_u8": dict(block_size=256, unroll_x=8),
    "b256_u16": dict(block_size=256, unroll_x=16),
    "b256_u4_g2112": dict(block_size=256, unroll_x=4, reduce_blocks=2112),
    "b256_u8_g1056": dict(block_size=256, unroll_x=8, reduce_blocks=1056),
    "b256_u16_g1056": dict(block_size=256, unroll_x=16, reduce_blocks=1056),
    "b256_u16_g528": dict(block_size=256, unroll_x=16, reduce_blocks=528),
    "b512_u8_g528": dict(block_size=512, unroll_x=8, reduce_blocks=528),
    "b512_u16_g264": dict(block_size=512, unroll_x=16, reduce_blocks=264),
}
HISTOGRAM_SHAPES = {
    "b256_u8_shared": dict(block_size=256, unroll_x=8, array_reduction="shared"),
    "b512_u8_shared": dict(block_size=512, unroll_x=8, array_reduction="shared"),
    "b256_u16_shared": dict(block_size=256, unroll_x=16, array_reduction="shared"),
    "b256_u8_global": dict(block_size=256, unroll_x=8, array_reduction="global"),
}
WIDE_HISTOGRAM_SHAPES = {
    "b256_u8_partials": dict(block_size=256, unroll_x=8, array_reduction="partials"),
    "b256_u8_global": dict(block_size=256, unroll_x=8, array_reduction="global"),
}
COLSUM_SHAPES = {
    "b128_k8": dict(block_size=128, unroll_serial=8),
    "b64_k16": dict(block_size=64, unroll_serial=16),
    "b32_k16": dict(block_size=32, unroll_serial=16),
    # rows split over walkers on y (split_walkers), combined by atomics into out
    "b32x8_w32_k8": dict(block_size=32, block_y=8, split_walkers=32, unroll_serial=8),
    "b32x8_w64_k8": dict(block_size=32, block_y=8, split_walkers=64, unroll_serial=8),
    "b32x8_w128_k8": dict(block_size=32, block_y=8, split_walkers=128, unroll_serial=8),
    "b32x16_w64_k4": dict(block_size=32, block_y=16, split_walkers=64, unroll_serial=4),
    "b64x4_w64_k8": dict(block_size=64, block_y=4, split_walkers=64, unroll_serial=8),
    "b128x2_w32_k8": dict(block_size=128, block_y=2, split_walkers=32, unroll_serial=8),
    "b256_w64_k8": dict(block_size=256, split_walkers=64, unroll_serial=8),
}


def reductions(quick: bool = False) -> list[Case]:
    """Reductions against PyTorch (benchmarks/reductions.py): sum, dot, int max and an `&&`
    all-check of 2^28 elements in every REDUCE_SHAPES shape and deterministic; a 256-bin
    histogram of 2^28 bytes (array reduction), also with the 256 bins a parameter K (dynamic
    shared memory); column sums of a 16384² matrix; histograms of 2^26 int keys into 2^16 and
    2^20 bins (beyond shared memory: per-block partials against global atomics)."""
    from benchmarks.reductions import (
        ALL_POSITIVE,
        COLSUM,
        DOT,
        HISTOGRAM,
        HISTOGRAM_K,
        HISTOGRAM_WIDE,
        MAX_INT,
        SUM,
    )

    n, side = (1 << 20, 1024) if quick else (1 << 28, 16384)
    cases: list[Case] = []
    for problem in (SUM, DOT, MAX_INT, ALL_POSITIVE):
        variants = [Variant(f"{problem.name}_vanilla", problem, vanilla(256), "block 256")]
        variants += [Variant(f"{problem.name}_{name}", problem, optimize(**options), name)
                     for name, options in REDUCE_SHAPES.items()]
        variants.append(Variant(f"{problem.name}_det", problem,
                                optimize(deterministic=True, **REDUCE_SHAPES["b256_u16_g1056"]),
                                "b256_u16_g1056, deterministic"))
        cases += [Case(v, sizes_of(problem, n)) for v in variants]
    cases += [Case(Variant(f"histogram_{name}", HISTOGRAM, optimize(**options), name),
                   sizes_of(HISTOGRAM, n)) for name, options in HISTOGRAM_SHAPES.items()]
    cases += [Case(Variant(f"colsum_{name}", COLSUM, optimize(**options), name),
                   sizes_of(COLSUM, side)) for name, options in COLSUM_SHAPES.items()]
    cases += [Case(Variant(f"histogram_k_{name}", HISTOGRAM_K, optimize(**options), name),
                   sizes_of(HISTOGRAM_K, n, 256)) for name, options in HISTOGRAM_SHAPES.items()]
    keys = (1 << 16) if quick else (1 << 26)
    cases += [Case(Variant(f"histogram_wide_k{bins}_{name}", HISTOGRAM_WIDE, optimize(**options),
                           name), sizes_of(HISTOGRAM_WIDE, keys, bins))
              for bins in (1 << 16, 1 << 20) for name, options in WIDE_HISTOGRAM_SHAPES.items()]
    return cases


def remap(quick: bool = False) -> list[Case]:
    """Flat remapping against the 3D mapping and PyTorch (benchmarks/remap.py, issue #13): a
    4-deep batch of small matrix products and a 5-deep broadcast scale (one of them the issue's
    degenerate (1000, 1000, 1, 1, 1)), each as today's 3D mapping, flattened whole
    (`flatten_mode=all`), above its innermost two levels (`outer`), and whole with the sizes
    compiled in (32-bit index, divisions by constants); the Jacobi 2D time loop at T steps and
    at one step (its launch overhead)."""
    from benchmarks.remap import BMM4, JACOBI_2D, JACOBI_2D_COLLAPSED, SCALE5

    bmm = [(64, 50, 4, 4, 4)] if quick else [(1000, 1000, 4, 4, 4)]
    scale = [(32, 30, 3, 4, 2), (100, 100, 1, 1, 1)] if quick else [
        (256, 256, 8, 4, 4), (1000, 1000, 1, 1, 1)]
    jacobi_t, jacobi_n = (10, 66) if quick else (100, 8192)
    cases: list[Case] = []
    for problem, shapes in ((BMM4, bmm), (SCALE5, scale)):
        for shape in shapes:
            sizes = sizes_of(problem, *shape)
            spec = sized(**dict(sizes))
            cases += [Case(Variant(f"{problem.name}_{name}", problem, pipeline, description), sizes)
                      for name, pipeline, description in (
                          ("3d", optimize(), "the 3D mapping (innermost three levels)"),
                          ("flat_all", optimize(flatten=True), "one flat index, general sizes"),
                          ("flat_outer", optimize(flatten=True, flatten_mode="outer"),
                           "levels above the innermost two merged into z"),
                          ("flat_all_spec", optimize(sizes=spec, flatten=True),
                           "one flat index, sizes compiled in"))]
    jacobi = [Variant("jacobi_2d", JACOBI_2D, optimize(),
                      "the host time loop, 2T launches; rows parallel"),
              Variant("jacobi_2d_collapse2", JACOBI_2D_COLLAPSED, optimize(),
                      "the same with the sweeps collapse(2)")]
    cases += [Case(v, sizes_of(JACOBI_2D, t, jacobi_n)) for t in (jacobi_t, 1) for v in jacobi]
    from benchmarks.remap import JACOBI_2D_CONVERGE

    converge = Variant("jacobi_2d_converge", JACOBI_2D_CONVERGE, optimize(),
                       "a convergence loop: the host reads the max reduction's test per step")
    cases += [Case(converge, sizes_of(JACOBI_2D_CONVERGE, t, jacobi_n)) for t in (jacobi_t, 1)]
    return cases


#: The best autogpu-tiled configurations of the `tiles` suite's runs for general sizes (none
#: compiled in, so one kernel serves every size of a layout): SGEMM 128x128x16 double-buffered,
#: swizzled, 32-bit indices; DGEMM 128x64x16 tiles of 32x8 threads of 4x8, two blocks per SM.
SGEMM_BEST = dict(bk=16, stages=2, swizzle=True, narrow_indices=True)
DGEMM_BEST = dict(block_size=32, block_y=8, tm=4, tn=8, min_blocks=2, swizzle=True)


def gemm(quick: bool = False) -> list[Case]:
    """C = alpha * op(A) op(B) + beta * C (benchmarks/gemm.py) in every layout, SGEMM and
    DGEMM, at 1024³ to 8192³ and the odd 3000³ and 4095x4097x1023, autogpu-tiled's best
    general-size configuration against cuBLAS (torch addmm_ with the layout's transposes,
    alpha and beta, TF32 off) in the same run; then a SYRK and a GEMM with a bias and ReLU
    tail (other two-operand nests and tails through the same passes)."""
    from benchmarks.gemm import ALPHA, BETA, GEMMS, LAYOUTS

    shapes = [(128, 128, 32), (67, 130, 33)] if quick else [
        (1024,) * 3, (2048,) * 3, (4096,) * 3, (8192,) * 3, (3000,) * 3, (4095, 4097, 1023)]
    cases: list[Case] = []
    for precision, best in (("s", SGEMM_BEST), ("d", DGEMM_BEST)):
        for layout in LAYOUTS:
            problem = GEMMS[f"{precision}gemm_{layout}"]
            variant = Variant(f"{problem.name}_tiled", problem, tiled(**best),
                              "autogpu-tiled's best general-size configuration")
            cases += [Case(variant, sizes_of(problem, *shape, ALPHA, BETA)) for shape in shapes]
    for name in ("ssyrk", "sgemm_bias_relu"):
        problem = GEMMS[name]
        variant = Variant(f"{name}_tiled", problem, tiled(**SGEMM_BEST),
                          "autogpu-tiled's best SGEMM configuration")
        square = [(n, n, k) for n, _, k in shapes[:1]] if quick else [(2048,) * 3, (4096,) * 3]
        cases += [Case(variant, sizes_of(problem, *shape, ALPHA, BETA)) for shape in square]
    return cases


#: Convolution configurations of autogpu-tiled: a thread's register tile of tm x tn outputs,
#: the block's image tile plus its halo in `__shared__` (gpu-cache-shared's halo tiles, the
#: threads' windows folded into one), the template cached whole.
CONV_TILED = (
    ("tiled_4x4", dict(tm=4, tn=4), "16x16 threads of 4x4: a 64x64 tile + halo"),
    ("tiled_32x8_4x4", dict(block_size=32, block_y=8, tm=4, tn=4),
     "32x8 threads of 4x4: a 128x32 tile + halo"),
    ("tiled_32x8_1x8", dict(block_size=32, block_y=8, tm=1, tn=8),
     "32x8 threads of 1x8: a 32x64 tile + halo"),
)


def conv(quick: bool = False) -> list[Case]:
    """Convolutions 5x5, 7x7 and 11x11 on 8192² (examples/conv2d.c): the paper's tuned shape,
    autogpu-tiled's register and halo tiles with the sizes compiled in and for any size up
    to 11x11 (`cache_max_extent`), against cupyx (`ndimage.correlate`) and cuDNN
    (`torch.nn.functional.conv2d`, TF32 off) in the same run."""
    n = 96 if quick else 8192
    general = Variant("conv_tiled_general", CONV2D, tiled(tm=4, tn=4, cache_max_extent=11),
                      "16x16 threads of 4x4, sizes not compiled in (windows up to 11)")
    cases: list[Case] = []
    for t in (5, 7, 11):
        sizes = sizes_of(CONV2D, n, n, t)
        variants = [conv_variants(t, n)[f"conv{t}_autogpu"]]
        variants += [Variant(f"conv{t}_{name}", CONV2D,
                             tiled(sizes=sized(n=n, m=n, t=t), **options), description)
                     for name, options, description in CONV_TILED]
        cases += [Case(v, sizes) for v in (*variants, general)]
    return cases


SUITES: dict[str, Callable[[bool], list[Case]]] = {"paper": paper, "tuning": tuning,
                                                   "tiles": tiles, "reductions": reductions,
                                                   "remap": remap, "gemm": gemm, "conv": conv}
