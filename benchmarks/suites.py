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

from collections.abc import Callable
from dataclasses import dataclass

from benchmarks.problems import CONV2D, MATMUL, Problem


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
    return f"autogpu-vanilla{{block_size={block_size}}}"


def optimize(**options: object) -> str:
    def fmt(value: object) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, tuple):
            return ",".join(fmt(v) for v in value)
        return str(value)

    return "autogpu-optimize{" + " ".join(f"{k}={fmt(v)}" for k, v in options.items()) + "}"


STAGED = dict(block=(256, 1), stage=True)
CACHED = dict(STAGED, cache=True)
# block width 256; the parallel loops (i, j) unrolled 2 and 8; the k loop unrolled 16
MM_AUTOGPU = dict(CACHED, unroll_parallel=(2, 8), unroll_inner=16)
GUARDED = dict(guards=True)


# The building blocks as they exist today: staging and unrolling at the loop level, the
# vanilla lowering (which always guards: the fallback of mm_cond_k is mm_k's), shared-memory
# caching at the GPU level. The examples' pointers are not `restrict`, so staging and caching
# are told the buffers do not alias (they do not: the runner allocates each one), as the paper
# assumes; without it they leave the kernel unchanged.
STAGE = "agpu-stage-accumulations{assume_no_alias=true}"
CACHE = "gpu-cache-shared{assume_no_alias=true}"
MM_STAGED = f"{STAGE},{vanilla(256)}"
MM_CACHED = f"{MM_STAGED},{CACHE}"
# parallel loops i (x) and j (y) unrolled 2 and 8 and jammed by the lowering; k unrolled 16
MM_UNROLLED = (f"{STAGE},agpu-unroll-parallel{{x=2 y=8}},agpu-unroll-serial{{factor=16 loops=k}},"
               f"{vanilla(256)},{CACHE}")


def conv_cached(t: int) -> str:
    """The input window cached; its loops bounded by t at run time (max_extent)."""
    return f"{STAGE},{vanilla(256)},gpu-cache-shared{{assume_no_alias=true max_extent={t}}}"


def conv_unrolled(t: int) -> str:
    """t specialised so the template loops unroll completely; j (y) unrolled 8; 32x1 block.
    Not cached: gpu-cache-shared on the 8 x t x t unrolled body takes minutes today."""
    return (f'agpu-specialize{{sizes="t={t}"}},{STAGE},agpu-unroll-parallel{{y=8}},'
            f"agpu-unroll-serial{{loops=v,u full_unroll_limit={t}}},{vanilla(32)}")


def conv_autogpu(t: int) -> str:
    # 32x1 block; j (the grid loop) unrolled 8; the t x t template loops unrolled by t, i.e.
    # fully for this template size
    return optimize(block=(32, 1), stage=True, cache=True, unroll_parallel=(1, 8), unroll_inner=t)


MATMUL_VARIANTS = {
    v.name: v
    for v in (
        Variant("mm_0", MATMUL, vanilla(256), "autogpu-vanilla: one thread per A element"),
        Variant("mm_1", MATMUL, optimize(**STAGED), "A's element staged in a register",
                (MM_STAGED,)),
        Variant("mm_2", MATMUL, optimize(**CACHED), "staged + C's column cached in shared memory",
                (MM_CACHED,)),
        Variant("mm_autogpu", MATMUL, optimize(**MM_AUTOGPU), "block 256, unroll (2, 8), k x16",
                (MM_UNROLLED,)),
        Variant("mm_cond_1", MATMUL, optimize(**STAGED, **GUARDED), "mm_1 with bounds guards",
                (MM_STAGED,)),
        Variant("mm_cond_2", MATMUL, optimize(**CACHED, **GUARDED), "mm_2 with bounds guards",
                (MM_CACHED,)),
        Variant("mm_cond_autogpu", MATMUL, optimize(**MM_AUTOGPU, **GUARDED),
                "mm_autogpu with bounds guards", (MM_UNROLLED,)),
    )
}


def conv_variants(t: int) -> dict[str, Variant]:
    prefix = f"conv{t}"
    return {
        v.name: v
        for v in (
            Variant(f"{prefix}_0", CONV2D, vanilla(256), "autogpu-vanilla: one thread per pixel"),
            Variant(f"{prefix}_1", CONV2D, optimize(**CACHED), "staged + input window cached",
                    (conv_cached(t),)),
            Variant(f"{prefix}_autogpu", CONV2D, conv_autogpu(t),
                    "block 32x1, j x8, template unrolled", (conv_unrolled(t),)),
        )
    }


def paper(quick: bool = False) -> list[Case]:
    """The paper's progression. Unguarded variants run only where the size is a multiple of
    their tiles (2048, 8192); the guarded ones at 3000, which is not."""
    mm_even, mm_odd, conv_n = (512, 500, 1024) if quick else (2048, 3000, 8192)
    mm = MATMUL_VARIANTS
    cases = [Case(mm[name], sizes_of(MATMUL, mm_even, mm_even, mm_even))
             for name in ("mm_0", "mm_1", "mm_2", "mm_autogpu")]
    cases += [Case(mm[name], sizes_of(MATMUL, mm_odd, mm_odd, mm_odd))
              for name in ("mm_0", "mm_cond_1", "mm_cond_2", "mm_cond_autogpu")]
    for t in (5, 11):
        cases += [Case(v, sizes_of(CONV2D, conv_n, conv_n, t)) for v in conv_variants(t).values()]
    return cases


SUITES: dict[str, Callable[[bool], list[Case]]] = {"paper": paper}
