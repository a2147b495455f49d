"""Named pipelines: one pass name for a whole sequence of passes, with every option of each.

A pipeline is a `ModulePass` whose `apply` runs its sub-passes, so it works everywhere a pass
does: `autogpu-opt -p 'autogpu-vanilla{block_size=128}'`, `PassPipeline`, the tuner.

Its options are not written here: each pipeline is generated from a table of stages, (pass,
prefix), and every option a pass declares (`options.option(...)`) becomes the pipeline option
prefix + name, forwarded to the pass, with the pass's doc, tuning values and role. Where
prefix + name is not the public name users and the tuner's cache know, the stage says the name
once (`names`); where the pipeline's default or tuning values differ from the pass's, `DIFFERS`
says so once, with the reason. Options several stages share (`assume_no_alias`) are one option.
Adding an option to a pass adds it to every pipeline that runs the pass, and to the tuner.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass, PassPipeline
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination

from autogpu.passes.agpu_dense_indexing import AgpuDenseIndexingPass
from autogpu.passes.agpu_flatten_nest import AgpuFlattenNestPass
from autogpu.passes.agpu_specialize import AgpuSpecializePass
from autogpu.passes.agpu_stage_accumulations import AgpuStageAccumulationsPass
from autogpu.passes.agpu_unroll_parallel import AgpuUnrollParallelPass
from autogpu.passes.agpu_unroll_serial import AgpuUnrollSerialPass
from autogpu.passes.canonicalize import HoistingCanonicalizePass
from autogpu.passes.convert_agpu_to_gpu import ConvertAgpuToGpuPass
from autogpu.passes.gpu_cache_shared import GpuCacheSharedPass
from autogpu.passes.gpu_dynamic_shared import GpuDynamicSharedPass
from autogpu.passes.gpu_infer_nsw import GpuInferNswPass
from autogpu.passes.gpu_narrow_indices import GpuNarrowIndicesPass
from autogpu.passes.gpu_optimize_guards import GpuOptimizeGuardsPass
from autogpu.passes.gpu_pipeline_tiles import GpuPipelineTilesPass
from autogpu.passes.gpu_vectorize import GpuVectorizePass
from autogpu.passes.gpu_warp_tile import GpuWarpTilePass
from autogpu.passes.options import (
    METADATA_KEY,
    DeclaredOptionsPass,
    OptionDecl,
    declarations,
    option,
    option_fields,
)
from autogpu.target.cuda_limits import REGISTERS_PER_SM, REGISTERS_PER_THREAD

_SAME: Any = object()


@dataclass(frozen=True)
class Switch:
    """A pipeline option of its own: a flag that runs a stage or not."""

    name: str
    field: Any  # the dataclass field `option(...)` made


def switch(name: str, default: bool, *, doc: str, tuning: str | None = None) -> Switch:
    return Switch(name, option(default, doc=doc, tuning=tuning))


@dataclass(frozen=True)
class Stage:
    """One pass of a pipeline, and how the pipeline's options reach it."""

    pass_class: type[ModulePass]
    prefix: str = ""
    """The pipeline calls the pass's option `o` prefix + o ..."""
    names: Mapping[str, str] = field(default_factory=dict[str, str])
    """... except those named here (pass option -> pipeline option)."""
    switch: Switch | None = None
    """The pipeline's flag that runs the stage."""
    runs_if: str | None = None
    """A pass option that must be given (non-empty) for the stage to run."""

    def public(self, option_name: str) -> str:
        return self.names.get(option_name, self.prefix + option_name)


@dataclass(frozen=True)
class Differs:
    """A pipeline option whose default or tuning values differ from its pass's, and why."""

    why: str
    default: Any = _SAME
    tuning: Any = _SAME  # values, or None: not tuned by default


@dataclass(frozen=True)
class Forward:
    """Pipeline option `public` is option `option` of the pass of stage `stage`."""

    stage: int
    option: str
    public: str


class Pipeline(DeclaredOptionsPass):
    """A pass that runs the stages of its table (see `pipeline_class`). Building it builds the
    passes, so a bad option is refused at once, in the words of the pass that owns it."""

    STAGES: ClassVar[tuple[Stage, ...]] = ()
    FORWARDS: ClassVar[tuple[Forward, ...]] = ()
    DIFFERS: ClassVar[Mapping[str, Differs]] = {}

    if TYPE_CHECKING:  # the fields are made at run time from the stage table (pipeline_class)
        def __init__(self, **options: Any) -> None: ...

        def __getattr__(self, option: str) -> Any: ...

    def __post_init__(self) -> None:
        super().__post_init__()
        self.passes()

    @classmethod
    def option_notes(cls, public: str) -> list[str]:
        """Where option `public` goes, and why it differs from its pass's (for --help)."""
        targets = [f"{cls.STAGES[f.stage].pass_class.name}{{{f.option}}}" for f in cls.FORWARDS
                   if f.public == public]
        notes = [f"Forwarded to {', '.join(targets)}."] if targets else []
        if public in cls.DIFFERS:
            notes.append(f"Differs from the pass: {cls.DIFFERS[public].why}.")
        for stage in cls.STAGES:
            if stage.switch is not None and stage.switch.name == public:
                notes.append(f"Runs {stage.pass_class.name}.")
        return notes

    def runs(self, stage: Stage) -> bool:
        if stage.switch is not None and not getattr(self, stage.switch.name):
            return False
        return stage.runs_if is None or bool(getattr(self, stage.public(stage.runs_if)))

    def passes(self) -> tuple[ModulePass, ...]:
        built: list[ModulePass] = []
        for index, stage in enumerate(self.STAGES):
            if self.runs(stage):
                given = {f.option: getattr(self, f.public) for f in self.FORWARDS
                         if f.stage == index}
                built.append(stage.pass_class(**given))
        return tuple(built)

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PassPipeline(self.passes()).apply(ctx, op)


def pipeline_class(class_name: str, name: str, doc: str, stages: tuple[Stage, ...],
                   differs: Mapping[str, Differs] | None = None,
                   restrictions: tuple[str, ...] = ()) -> type[Pipeline]:
    """The `Pipeline` named `name` running `stages`: a frozen dataclass whose fields are the
    stages' switches and their passes' declared options, renamed as the stages say."""
    given = dict(differs or {})
    pending = dict(given)
    fields: list[tuple[str, Any, Any]] = []
    forwards: list[Forward] = []
    owner: dict[str, tuple[Any, Any]] = {}  # public name -> (type, pass default)
    for index, stage in enumerate(stages):
        if stage.switch is not None:
            fields.append((stage.switch.name, bool, stage.switch.field))
        hints = typing.get_type_hints(stage.pass_class)
        declared = declarations(stage.pass_class)
        for typo in set(stage.names) - set(declared) | ({stage.runs_if} - set(declared) - {None}):
            raise TypeError(f"{name}: {stage.pass_class.name} has no option '{typo}'")
        for f in option_fields(stage.pass_class):
            if f.name not in declared:
                continue  # a pass autogpu does not own: its options stay its own
            public = stage.public(f.name)
            forwards.append(Forward(index, f.name, public))
            if public in owner:
                if owner[public] != (hints[f.name], f.default):
                    raise TypeError(f"{name}: the stages sharing option '{public}' disagree on "
                                    "its type or default")
                continue
            owner[public] = (hints[f.name], f.default)
            change = pending.pop(public, Differs(""))
            decl = declared[f.name]
            # The pass checks its option when the pipeline builds it, in its own words.
            forwarded = OptionDecl(decl.doc, None,
                                   decl.tuning if change.tuning is _SAME else change.tuning,
                                   decl.role)
            default = f.default if change.default is _SAME else change.default
            fields.append((public, hints[f.name],
                           dataclasses.field(default=default, metadata={METADATA_KEY: forwarded})))
    if pending:
        raise TypeError(f"{name}: DIFFERS names {', '.join(pending)}, no option of its stages")
    namespace = {"name": name, "__doc__": doc, "__module__": __name__, "STAGES": stages,
                 "FORWARDS": tuple(forwards), "DIFFERS": given,
                 "TUNING_RESTRICTIONS": restrictions}
    return dataclasses.make_dataclass(class_name, fields, bases=(Pipeline,), frozen=True,
                                      namespace=namespace)


CLEANUP = (
    Stage(HoistingCanonicalizePass),
    Stage(GpuInferNswPass),
    Stage(CommonSubexpressionElimination),
)
"""canonicalize and cse only fold and merge the arith/scf/memref/gpu ops the lowering produces
(constants, index arithmetic, dead code), so the result stays printable by the `cuda` target;
gpu-infer-nsw between them marks the index arithmetic it proves small `nsw`."""

VANILLA_DIFFERS = {
    option_name: Differs(
        "the block shape is the vanilla kernel's only knob, so its space spans every legal "
        "block; autogpu-optimize keeps the paper's widths, which its unroll factors multiply",
        tuning=values)
    for option_name, values in (("block_size", "pow2(32, 1024)"), ("block_y", "pow2(1, 16)"),
                                ("block_z", "[1, 2, 4]"))
}

AutogpuVanillaPipeline = pipeline_class(
    "AutogpuVanillaPipeline", "autogpu-vanilla",
    """AutoGPU's direct translation (the paper's `mm_0`): the parallel loops as they are,
    mapped to threads and blocks, then folded, the provably small index arithmetic marked
    `nsw` (gpu-infer-nsw), and deduplicated.""",
    (Stage(ConvertAgpuToGpuPass), *CLEANUP),
    VANILLA_DIFFERS,
)

OPTIMIZE_STAGES = (
    Stage(AgpuSpecializePass, "specialize_", names={"sizes": "sizes"}, runs_if="sizes"),
    Stage(AgpuFlattenNestPass, "flatten_",
          switch=switch("flatten", False, doc="Remap parallel nests of at least flatten_min_depth "
                        "levels to one flat index (agpu-flatten-nest) instead of the 3D mapping.",
                        # tuned where a nest is as deep as the pass's default min_depth
                        tuning="[false, true] if parallel_dims >= 4 else [false]")),
    Stage(AgpuDenseIndexingPass, "dense_"),
    Stage(AgpuStageAccumulationsPass, "stage_", names={"assume_no_alias": "assume_no_alias"},
          switch=switch("stage", True, doc="Keep array elements accumulated in serial loops in "
                        "registers (agpu-stage-accumulations).")),
    Stage(AgpuUnrollParallelPass, "unroll_"),
    Stage(ConvertAgpuToGpuPass),
    Stage(GpuCacheSharedPass, "cache_", names={"shared_budget": "shared_budget",
                                               "assume_no_alias": "assume_no_alias"},
          switch=switch("cache", True, doc="Cache thread-invariant reads walking a serial loop "
                        "in shared memory (mm_1 -> mm_2; gpu-cache-shared).",
                        tuning="[false, true]")),
    Stage(AgpuUnrollSerialPass, "unroll_", names={"factor": "unroll_serial",
                                                  "full_unroll_limit": "full_unroll_limit"}),
    Stage(GpuOptimizeGuardsPass),
    Stage(GpuVectorizePass, "vector_"),
    Stage(GpuNarrowIndicesPass, "narrow_",
          switch=switch("narrow_indices", False, doc="Compute the index arithmetic that provably "
                        "fits in 32 bits in int (gpu-narrow-indices).")),
    *CLEANUP,
    Stage(GpuDynamicSharedPass, "dynamic_shared_"),
)
"""The paper's order. Caching and serial unrolling run on the lowered kernel: caching needs the
block shape and the barriers that only exist there, and unrolling the serial loop after caching
unrolls the loop over a shared tile (the paper's `k` unrolled 16 in `mm_autogpu`)."""

OPTIMIZE_DIFFERS = {
    "assume_no_alias": Differs(
        "the paper's assumption that distinct array parameters do not overlap, for staging and "
        "caching; autogpu's executors reject overlapping arrays, so it holds for their callers "
        "(the passes alone stay safe for any C caller)", default=True),
    **{f"unroll_{axis}": Differs(
        "the pipeline sets every factor, 1: no coarsening (the pass's None keeps a factor the "
        "IR has), so the tuner and its restrictions read numbers", default=1)
       for axis in "xyz"},
    "unroll_serial": Differs(
        "serial loops stay rolled unless asked (the paper's mm_1 and mm_2); the pass alone "
        "unrolls by 4", default=1),
    "vector_width": Differs(
        "the paper's kernels read scalars; vector reads pay for the contiguous fragments of "
        "blocked register tiles (autogpu-tiled)", default=0, tuning=None),
}

AutogpuOptimizePipeline = pipeline_class(
    "AutogpuOptimizePipeline", "autogpu-optimize",
    """The AutoGPU transformations in the paper's order, every option of every pass exposed:

    specialise sizes -> dense/sparse indexing -> staging of accumulations -> parallel unrolling
    (thread coarsening, recorded on the loops) -> lowering (threads, blocks, unroll-and-jam,
    guards) -> caching through `__shared__` -> unrolling of serial loops -> guard placement ->
    vector accesses (gpu-vectorize) -> 32-bit indices (gpu-narrow-indices, when
    narrow_indices) ->
    canonicalize, gpu-infer-nsw, cse.

    Its default tuning space is the paper's: 288 variants, the paper-structure kernels among
    them (`mm_autogpu`: block 256, unroll (2, 8), k unrolled 16).""",
    OPTIMIZE_STAGES,
    OPTIMIZE_DIFFERS,
    # Bounds the replicas of a thread (each holds its own accumulators in registers) where a
    # user widens the unroll factors; serial unrolling only lengthens the code.
    restrictions=("unroll_x * unroll_y <= 32",
                  # Flattening is a choice only for kernels with a nest that deep.
                  "not flatten or parallel_dims >= flatten_min_depth"),
)

TILED_STAGES = tuple(
    Stage(stage.pass_class, stage.prefix, {**stage.names, "x": "tm", "y": "tn"}, stage.switch,
          stage.runs_if) if stage.pass_class is AgpuUnrollParallelPass
    else Stage(stage.pass_class, stage.prefix, {**stage.names, "tile": "bk"}, stage.switch,
               stage.runs_if) if stage.pass_class is GpuCacheSharedPass
    else Stage(stage.pass_class, stage.prefix, stage.names, switch(
        "narrow_indices", True, doc="Compute the index arithmetic that provably fits in 32 "
        "bits in int (gpu-narrow-indices). On by default: with the default tiles, general-size "
        "SGEMM on the H100 takes 0.543 ms instead of 0.723 ms at 2048^3 (0.66x instead of "
        "0.50x cuBLAS), DGEMM within 2 % (docs/h100-findings.md). Tuned: on some register "
        "tiles it costs (+3 to +5 % for 128x128x16 with min_blocks=2).", tuning="[false, true]"),
        stage.runs_if) if stage.pass_class is GpuNarrowIndicesPass
    else stage
    for stage in OPTIMIZE_STAGES
)
"""autogpu-optimize's stages, with the tile knobs named as GEMM kernels name them, and 32-bit
indices tuned."""
_AFTER_VECTORIZE = 1 + next(i for i, stage in enumerate(TILED_STAGES)
                            if stage.pass_class is GpuVectorizePass)
TILED_STAGES = (*TILED_STAGES[:_AFTER_VECTORIZE],  # pyright: ignore[reportConstantRedefinition]  # built in two steps: pipeline-tiles joins after gpu-vectorize
                Stage(GpuPipelineTilesPass, "pipeline_", names={"stages": "stages",
                                                                "swizzle": "swizzle",
                                                                "async_copy": "async_copy"}),
                Stage(GpuWarpTilePass, "warp_"),
                *TILED_STAGES[_AFTER_VECTORIZE:])
"""... and double-buffered tiles (gpu-pipeline-tiles) after the vector accesses are formed, so
the copies it splits are already whole float4 stores; then the warps' threads arranged as
sub-tiles (gpu-warp-tile), on a kernel whose accesses every earlier pass has already analysed
in threadIdx."""

TILED_DIFFERS = {
    **OPTIMIZE_DIFFERS,
    **{name: Differs(
        f"a {what} of the block tile: 2D blocks of threads whose replicas (tm x tn, "
        "unroll-and-jammed) form each thread's register tile", default=default, tuning=values)
       for name, what, default, values in (
           ("block_size", "row of threads", 16, "[8, 16, 32]"),
           ("block_y", "column of threads", 16, "[8, 16]"),
           ("tm", "thread's rows (x)", 8, "[4, 8]"),
           ("tn", "thread's columns (y)", 8, "[4, 8]"))},
    "bk": Differs("the depth of both block tiles (iterations of the serial loop per tile); "
                  "16 halves the barriers and version checks of 8 (H100 SGEMM: 0.72 against "
                  "0.89 ms at 2048³, and faster at every size measured)",
                  default=16, tuning="[8, 16, 32]"),
    "cache_full_tiles": Differs(
        "blocks whose tiles are whole run a guard-free copy and a loop over the tile of "
        "constant trip count, which agpu-unroll-serial unrolls completely for bk <= "
        "full_unroll_limit (2.1x on general sizes at 2048³ on the H100, and the unrolled "
        "tile loop without unroll_serial)", default=True),
    "min_blocks": Differs(
        "a register tile takes nearly all of a thread's 255 registers unless the launch "
        "bounds ask for two blocks per multiprocessor (then 128)", default=0, tuning="[0, 2]"),
    "unroll_distribution": Differs(
        "blocked replicas make each thread's fragments contiguous in tiles laid out for them "
        "(float4 reads); with vectors and padding 0.572 -> 0.530 ms at 2048³, 4.51 -> 3.95 "
        "ms at 4096³, 7.76 -> 2.18 ms at 3000³ (H100 SGEMM, min_blocks=2)",
        default="blocked", tuning="['cyclic', 'blocked']"),
    "vector_width": Differs(
        "float4 fragment reads and whole-tile copies (the reads of blocked fragments are "
        "vectors; nvcc vectorizes them itself where it can prove the alignment)",
        default=4, tuning="[0, 4]"),
    "cache_copy_width": Differs(
        "each thread copies 4 consecutive elements of a whole tile (one float4 store)",
        default=4, tuning="[1, 4]"),
    "cache_pad": Differs(
        "a tile stored transposed (blocked fragments of an operand whose array walks k "
        "fastest) has 16-way bank conflicts in its copy without padding: 0.655 -> 0.530 ms "
        "at 2048³ (H100)", default=4, tuning="[0, 2, 4]"),
}
TILED_DIFFERS["stages"] = Differs(
    "double-buffered tiles hide the next tile's global loads behind the current tile's "
    "FMAs with one barrier per tile: -1 to -8 % at 2048³/4096³ with the sizes compiled in "
    "(H100 SGEMM, min_blocks=2), but +7 to +16 % at general sizes with 64-bit indices (more "
    "registers), so tuned, not the default", default=1, tuning="[1, 2]")
TILED_DIFFERS["swizzle"] = Differs(
    "the unpadded tile's 16-byte chunks XOR-swizzled: blocked fragments' LDS.128 lose their "
    "2-way bank conflicts (ncu: 33.6 M -> 0.07 M conflicts at 2048³); H100 SGEMM general "
    "sizes 0.560 -> 0.530 ms (2048³), 4.28 -> 3.89 ms (4096³), 2.17 -> 2.06 ms (3000³), "
    "DGEMM 128x64 -10 to -13 %; not tuned (faster in every row measured, and the space "
    "would pass the tuner's 100000 configurations)", default=True, tuning=None)
TILED_DIFFERS["warp_x"] = Differs(
    "warps as x * (32 / x) sub-tiles of the block: a warp's fragment reads meet fewer distinct "
    "addresses, each shared by more of its threads (ncu: load bank conflicts 137 K -> 1 K). "
    "With double-buffered tiles 4 x 8 warps pay (H100 SGEMM 0.447 -> 0.432 ms at 2048³, "
    "3.25 -> 3.15 ms at 4096³ with the sizes compiled in, 2.05 -> 1.95 ms at 3000³), but "
    "with the default single buffers nvcc then allocates 215 registers instead of 128 for "
    "general sizes (one block per SM: 0.525 -> 0.699 ms at 2048³), so off by default. Not "
    "tuned (with it the space would pass the tuner's 100000 configurations: `--set "
    "warp_x=0,4,8`)", default=0, tuning=None)
del TILED_DIFFERS["unroll_x"], TILED_DIFFERS["unroll_y"]

AutogpuTiledPipeline = pipeline_class(
    "AutogpuTiledPipeline", "autogpu-tiled",
    """autogpu-optimize's passes set for block and register tiles (issue #14): a 2D block of
    block_size x block_y threads, each computing tm x tn outputs (the parallel loops on x and y
    unroll-and-jammed: the replicas' accumulators stay in registers, and their reads of the
    operands are loaded once per step of the serial loop and reused tm * tn times), and every
    operand the block shares cached in `__shared__` in tiles of bk steps of the serial loop
    (gpu-cache-shared). For a matrix product this is a BM x BN block tile with BM = block_size
    * tm, BN = block_y * tn, and BM x bk, bk x BN tiles of the two operands. Nests that do not
    qualify keep what gpu-cache-shared cannot cache uncached (cache_remarks=true says why).""",
    TILED_STAGES,
    TILED_DIFFERS,
    # registers: tm * tn accumulators and tm + tn fragment values per thread
    restrictions=("tm * tn <= 64", "block_size * block_y >= 64",
                  # chunked copies pay only as vector stores; padding only moves the banks
                  # of the transposed tiles blocked fragments read
                  "cache_copy_width == 1 or vector_width > 0",
                  "cache_pad == 0 or unroll_distribution == 'blocked'",
                  # two blocks per multiprocessor must leave a thread its accumulators and
                  # fragments (a double takes two 32-bit registers) and some 24 registers of
                  # addresses and counters; one block must fit them in a thread's registers
                  f"min_blocks * block_size * block_y * ((tm * tn + tm + tn) * "
                  f"((element_bytes + 3) // 4) + 24) <= {REGISTERS_PER_SM}",
                  f"(tm * tn + tm + tn) * ((element_bytes + 3) // 4) + 24 <= "
                  f"{REGISTERS_PER_THREAD}",
                  # double-buffered tiles: both operands' tiles (one padded) twice, within
                  # the static shared memory of a block
                  "stages == 1 or stages * bk * (block_size * tm + block_y * tn + cache_pad) "
                  "* element_bytes <= max_shared",
                  # warp tiles: whole x * (32 / x) sub-tiles of the block
                  "warp_x == 0 or (block_size % warp_x == 0 and block_y % (32 // warp_x) == 0)"),
)
