"""Each option is declared once, on its pass (`autogpu/passes/options.py`): its doc, check,
tuning values and role travel from there to the pipelines (generated from a table of stages),
`autogpu-opt` and the tuner. The proof: one new declaration on a pass is a knob of the pipeline,
of the command line and of the tuner's space, with nothing else written."""

from __future__ import annotations

import dataclasses
import importlib
import json
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from paths import ROOT

from autogpu.diagnostics import CompileError
from autogpu.passes import get_all_passes, gpu_cache_shared, pipelines
from autogpu.passes.agpu_dense_indexing import AgpuDenseIndexingPass
from autogpu.passes.agpu_specialize import AgpuSpecializePass
from autogpu.passes.agpu_stage_accumulations import AgpuStageAccumulationsPass
from autogpu.passes.agpu_unroll_parallel import UNROLL_X_TUNING, AgpuUnrollParallelPass
from autogpu.passes.agpu_unroll_serial import AgpuUnrollSerialPass
from autogpu.passes.convert_agpu_to_gpu import (
    ARRAY_REDUCTION_TUNING,
    REDUCE_BLOCKS_TUNING,
    WALKERS_TUNING,
    ConvertAgpuToGpuPass,
)
from autogpu.passes.gpu_cache_shared import GpuCacheSharedPass
from autogpu.passes.gpu_optimize_guards import GpuOptimizeGuardsPass
from autogpu.passes.options import (
    DeclaredOptionsPass,
    at_least,
    declarations,
    help_text,
    one_of,
    option,
    option_fields,
)
from autogpu.passes.pipelines import (
    AutogpuOptimizePipeline,
    AutogpuTiledPipeline,
    AutogpuVanillaPipeline,
    Pipeline,
)
from autogpu.tools import autogpu_opt, autogpu_tune
from autogpu.tuner import adapter
from autogpu.tuner.space import build_space

SAXPY = str(ROOT / "examples" / "saxpy.c")
PIPELINES = (AutogpuVanillaPipeline, AutogpuOptimizePipeline, AutogpuTiledPipeline)

# The public pipeline options before the options were declared once, with their defaults: users,
# scripts and the tuner's cache know these names.
VANILLA_BEFORE = {"block_size": 256, "block_y": 1, "block_z": 1}
OPTIMIZE_BEFORE = {
    "sizes": "", "dense_threshold": 64, "stage": True, "assume_no_alias": True, "unroll_x": 1,
    "unroll_y": 1, "unroll_z": 1, "block_size": 256, "block_y": 1, "block_z": 1, "jam": True,
    "cache": True, "cache_halo": True, "cache_tile": 0, "cache_max_extent": 0,
    "shared_budget": 48 * 1024, "unroll_serial": 1, "unroll_loops": (), "full_unroll_limit": 16,
}


def defaults(cls) -> dict[str, object]:
    return {f.name: f.default for f in option_fields(cls)}


def autogpu_pass_classes():
    return [load() for load in get_all_passes().values()]


# --- declarations -----------------------------------------------------------------------------


@pytest.mark.parametrize("cls", autogpu_pass_classes(), ids=lambda c: c.name)
def test_every_option_of_every_pass_is_declared_with_a_doc(cls):
    assert issubclass(cls, DeclaredOptionsPass)
    declared = declarations(cls)
    assert list(declared) == [f.name for f in option_fields(cls)]
    assert all(decl.doc for decl in declared.values())


def test_an_undeclared_option_is_refused():
    @dataclass(frozen=True)
    class Sloppy(DeclaredOptionsPass):
        name = "sloppy"
        depth: int = 2

        def apply(self, ctx, op):
            pass

    with pytest.raises(TypeError, match="sloppy: options depth are not declared"):
        declarations(Sloppy)


def test_declared_checks_refuse_values_in_the_pass_s_words():
    with pytest.raises(CompileError, match=r"agpu-unroll-serial: factor must be at least 1, "
                                           "got 0$"):
        AgpuUnrollSerialPass(factor=0)
    with pytest.raises(CompileError, match=r"gpu-cache-shared: tile must be at least 1 \(or "
                                           r"0\), got -1"):
        GpuCacheSharedPass(tile=-1)
    assert at_least(0, "at least 0 bytes")("budget", -4) == "budget must be at least 0 bytes, " \
                                                            "got -4"
    assert one_of("a", "b")("mode", "c") == "mode must be one of a, b; got 'c'"
    assert one_of("a", "b")("mode", "a") is None


def test_a_pass_s_tuning_space_is_read_off_its_declarations():
    assert AgpuUnrollParallelPass.TUNING_SPACE == {"x": UNROLL_X_TUNING, "y": "[1, 2, 4, 8]"}
    assert ConvertAgpuToGpuPass.TUNING_SPACE == {"block_size": "pow2(64, 512)",
                                                 "array_reduction": ARRAY_REDUCTION_TUNING,
                                                 "reduce_blocks": REDUCE_BLOCKS_TUNING,
                                                 "split_walkers": WALKERS_TUNING}
    assert AgpuUnrollSerialPass.TUNING_SPACE == {"factor": "[1, 4, 16]"}
    assert GpuCacheSharedPass.TUNING_SPACE == {}


# --- pipelines from the table -----------------------------------------------------------------


def test_pipelines_keep_the_public_names_and_defaults_users_know():
    assert {k: defaults(AutogpuVanillaPipeline)[k] for k in VANILLA_BEFORE} == VANILLA_BEFORE
    assert {k: defaults(AutogpuOptimizePipeline)[k] for k in OPTIMIZE_BEFORE} == OPTIMIZE_BEFORE
    assert AutogpuOptimizePipeline.TUNING_SPACE == {
        "unroll_x": UNROLL_X_TUNING, "unroll_y": "[1, 2, 4, 8]", "block_size": "pow2(64, 512)",
        "cache": "[false, true]", "unroll_serial": "[1, 4, 16]",
        "array_reduction": ARRAY_REDUCTION_TUNING, "reduce_blocks": REDUCE_BLOCKS_TUNING,
        "split_walkers": WALKERS_TUNING,
        "flatten": "[false, true] if parallel_dims >= 4 else [false]"}
    assert AutogpuOptimizePipeline.TUNING_RESTRICTIONS == (
        "unroll_x * unroll_y <= 32", "not flatten or parallel_dims >= flatten_min_depth")


@pytest.mark.parametrize("pipeline", PIPELINES, ids=lambda c: c.name)
def test_every_option_of_every_stage_is_reachable(pipeline):
    forwarded = {(f.stage, f.option) for f in pipeline.FORWARDS}
    for index, stage in enumerate(pipeline.STAGES):
        for name in declarations(stage.pass_class):
            assert (index, name) in forwarded, f"{stage.pass_class.name}{{{name}}}"


@pytest.mark.parametrize("pipeline", PIPELINES, ids=lambda c: c.name)
def test_defaults_differ_from_the_pass_only_where_the_table_says_why(pipeline):
    mine = defaults(pipeline)
    for f in pipeline.FORWARDS:
        pass_default = defaults(pipeline.STAGES[f.stage].pass_class)[f.option]
        if mine[f.public] != pass_default:
            assert pipeline.DIFFERS[f.public].why, f.public
    assert set(AutogpuOptimizePipeline.DIFFERS) == {
        "assume_no_alias", "unroll_x", "unroll_y", "unroll_z", "unroll_serial", "vector_width"}


def test_the_default_optimize_pipeline_builds_the_paper_s_passes():
    assert AutogpuOptimizePipeline().passes()[:7] == (
        AgpuDenseIndexingPass(threshold=64),
        AgpuStageAccumulationsPass(assume_no_alias=True),
        AgpuUnrollParallelPass(x=1, y=1, z=1),
        ConvertAgpuToGpuPass(256, 1, 1, jam=True, assume_no_alias=True),
        GpuCacheSharedPass(assume_no_alias=True),
        AgpuUnrollSerialPass(factor=1),
        GpuOptimizeGuardsPass(),
    )
    assert [p.name for p in AutogpuVanillaPipeline(block_size=64).passes()] == \
        ["convert-agpu-to-gpu", "canonicalize", "gpu-infer-nsw", "cse"]


def test_the_options_no_pipeline_could_reach_before_are_forwarded():
    passes = AutogpuOptimizePipeline(
        sizes="n=8", specialize_fold=False, dense_mode="sparse", cache_thread_invariant=False,
        cache_arrays=("x",), cache_remarks=True).passes()
    assert passes[0] == AgpuSpecializePass(sizes="n=8", fold=False)
    assert passes[1] == AgpuDenseIndexingPass(mode="sparse")
    assert passes[5] == GpuCacheSharedPass(thread_invariant=False, arrays=("x",), remarks=True,
                                           assume_no_alias=True)


def test_switches_and_given_options_decide_which_stages_run():
    names = [p.name for p in AutogpuOptimizePipeline(stage=False, cache=False).passes()]
    assert "agpu-stage-accumulations" not in names
    assert "gpu-cache-shared" not in names
    assert "agpu-specialize" not in names  # no sizes given


def test_a_bad_pipeline_option_is_refused_when_the_pipeline_is_built():
    with pytest.raises(CompileError, match="agpu-unroll-serial: factor must be at least 1, got 0"):
        AutogpuOptimizePipeline(unroll_serial=0)
    with pytest.raises(CompileError, match="agpu-dense-indexing: mode must be one of"):
        AutogpuOptimizePipeline(dense_mode="packed")
    AutogpuOptimizePipeline(cache=False, cache_tile=-1)  # the stage does not run


def test_help_lists_each_option_with_its_facts(capsys):
    text = help_text(AutogpuOptimizePipeline)
    assert "  unroll_serial: int = 1\n" in text
    assert "Forwarded to agpu-unroll-serial{factor}." in text.replace("\n      ", " ")
    assert "Role: threads per block along x." in text.replace("\n      ", " ")
    with pytest.raises(SystemExit):
        autogpu_opt.main(["--help-options"])
    out = capsys.readouterr().out
    assert "gpu-cache-shared: Cache global reads" in out
    assert "  cache_remarks: bool = false" in out


@pytest.mark.parametrize("pipeline, dims, expected, valid", [
    ("autogpu-optimize", 1, {"unroll_x": [1, 2, 4], "block_size": [64, 128, 256, 512],
                             "cache": [False, True], "unroll_serial": [1, 4, 16]}, 72),
    ("autogpu-optimize", 3, {"unroll_x": [1, 2, 4], "unroll_y": [1, 2, 4, 8],
                             "block_size": [64, 128, 256, 512], "cache": [False, True],
                             "unroll_serial": [1, 4, 16]}, 288),
    # A nest of flatten_min_depth levels or more: flat remapping against the 3D mapping.
    ("autogpu-optimize", 4, {"flatten": [False, True], "unroll_x": [1, 2, 4],
                             "unroll_y": [1, 2, 4, 8], "block_size": [64, 128, 256, 512],
                             "cache": [False, True], "unroll_serial": [1, 4, 16]}, 576),
    ("autogpu-vanilla", 3, {"block_size": [32, 64, 128, 256, 512, 1024],
                            "block_y": [1, 2, 4, 8, 16], "block_z": [1, 2, 4]}, 45),
])
def test_the_pipelines_default_spaces_are_the_paper_s(pipeline, dims, expected, valid):
    """The spaces the tuner's defaults table and name regexes used to give, now declared."""
    space = build_space(adapter.parse_pipeline_spec(pipeline),
                        {pipeline: adapter.pass_options(pipeline)}, {},
                        pass_restrictions={pipeline: adapter.pass_restrictions(pipeline)},
                        parallel_dims=dims)
    assert {p.name: list(p.values) for p in space.parameters} == expected
    assert list(expected) == space.names
    assert len(space.enumerate()) == valid


def test_the_tiled_pipeline_tunes_the_block_and_register_tiles():
    """autogpu-tiled: the tile knobs under GEMM names (tm, tn, bk), the 2D block and the
    launch bounds' blocks per multiprocessor, with the register restrictions (tm * tn <= 64;
    two blocks of 512 threads leave room for 4 x 4 tiles only) and at least 64 threads a
    block: 2 x 2 x 3 x 2 x 2 x 3 x 3 = 432 configurations with min_blocks = 0, and 432 - 3 x 18
    (the 512-thread block's tiles but 4 x 4) = 378 with min_blocks = 2; each with the fragment
    knobs (issue #14): 3 pairs of vector width and copy width (chunks only as vectors) times 4
    of distribution and padding (padding only for blocked fragments), with 32-bit indices or
    not; and double-buffered tiles (stages 2) only where both tiles twice fit
    a block's static shared memory."""
    name = "autogpu-tiled"
    space = build_space(adapter.parse_pipeline_spec(name), {name: adapter.pass_options(name)}, {},
                        pass_restrictions={name: adapter.pass_restrictions(name)},
                        parallel_dims=2)
    assert {p.name: list(p.values) for p in space.parameters} == {
        "tm": [4, 8], "tn": [4, 8], "block_size": [8, 16, 32], "block_y": [8, 16],
        "cache": [False, True], "min_blocks": [0, 2], "bk": [8, 16, 32],
        "unroll_serial": [1, 4, 16], "unroll_distribution": ["cyclic", "blocked"],
        "vector_width": [0, 4], "cache_copy_width": [1, 4], "cache_pad": [0, 2, 4],
        "narrow_indices": [False, True], "stages": [1, 2]}
    assert AutogpuTiledPipeline.TUNING_RESTRICTIONS == (
        "tm * tn <= 64", "block_size * block_y >= 64",
        "cache_copy_width == 1 or vector_width > 0",
        "cache_pad == 0 or unroll_distribution == 'blocked'",
        "min_blocks * block_size * block_y * ((tm * tn + tm + tn) * ((element_bytes + 3) // 4)"
        " + 24) <= 65536",
        "(tm * tn + tm + tn) * ((element_bytes + 3) // 4) + 24 <= 255",
        "stages == 1 or stages * bk * (block_size * tm + block_y * tn + cache_pad) "
        "* element_bytes <= max_shared",
        "warp_x == 0 or (block_size % warp_x == 0 and block_y % (32 // warp_x) == 0)")
    configs = space.enumerate()
    single = [c for c in configs if c["stages"] == 1]
    double = [c for c in configs if c["stages"] == 2]
    assert len(single) == 2 * (432 + 378) * 3 * 4

    def doubled_bytes(c):
        return 2 * c["bk"] * (c["block_size"] * c["tm"] + c["block_y"] * c["tn"]
                              + c["cache_pad"]) * 4

    assert len(double) == sum(doubled_bytes(c) <= 48 * 1024 for c in single) > 0
    assert all(doubled_bytes(c) <= 48 * 1024 for c in double)
    built = {p.name: p for p in AutogpuTiledPipeline(tm=2, tn=4, bk=16).passes()}
    unroll, cache = built["agpu-unroll-parallel"], built["gpu-cache-shared"]
    convert = built["convert-agpu-to-gpu"]
    assert isinstance(unroll, AgpuUnrollParallelPass)
    assert isinstance(cache, GpuCacheSharedPass)
    assert isinstance(convert, ConvertAgpuToGpuPass)
    assert (unroll.x, unroll.y) == (2, 4)
    assert cache.tile == 16
    defaults = {p.name: p for p in AutogpuTiledPipeline().passes()}
    default_cache, default_convert = defaults["gpu-cache-shared"], defaults["convert-agpu-to-gpu"]
    assert isinstance(default_cache, GpuCacheSharedPass)
    assert isinstance(default_convert, ConvertAgpuToGpuPass)
    assert default_cache.tile == 16
    assert default_cache.full_tiles
    assert default_convert.min_blocks == 0
    assert (convert.block_size, convert.block_y) == (16, 16)


# --- the proof: one declaration, a knob everywhere ------------------------------------------


RUNS: list[int] = []


@dataclass(frozen=True)
class GpuCacheSharedWithProbe(GpuCacheSharedPass):
    """gpu-cache-shared with one more option, and nothing else."""

    probe: int = option(2, doc="A knob declared in a test.", check=at_least(1),
                        tuning="[1, 2, 3]")

    def apply(self, ctx, op):
        RUNS.append(self.probe)
        super().apply(ctx, op)


@pytest.fixture
def pass_with_a_new_option() -> Iterator[type[Pipeline]]:
    """gpu-cache-shared as if its file had one more `option(...)`: the pipelines are generated
    again from their unchanged table."""
    original = dict(pipelines.__dict__)  # the classes other tests imported must stay the ones
    gpu_cache_shared.GpuCacheSharedPass = GpuCacheSharedWithProbe
    importlib.reload(pipelines)
    RUNS.clear()
    try:
        yield pipelines.AutogpuOptimizePipeline
    finally:
        gpu_cache_shared.GpuCacheSharedPass = GpuCacheSharedPass
        pipelines.__dict__.clear()
        pipelines.__dict__.update(original)


def test_one_declaration_is_a_knob_of_the_pipeline_the_cli_and_the_tuner(
        pass_with_a_new_option: type[Pipeline], capsys, tmp_path):
    pipeline = pass_with_a_new_option
    assert pipeline is get_all_passes()["autogpu-optimize"]()
    field = {f.name: f for f in dataclasses.fields(pipeline)}["cache_probe"]
    assert field.default == 2
    cache = pipeline(cache_probe=3).passes()[4]
    assert isinstance(cache, GpuCacheSharedWithProbe)
    assert cache.probe == 3

    out = tmp_path / "saxpy.cu"
    code = autogpu_opt.main([SAXPY, "-p", "autogpu-optimize{cache_probe=3}", "-t", "cuda",
                             "-o", str(out)])
    assert code == 0
    assert RUNS == [3]
    assert "__global__" in out.read_text()
    assert autogpu_opt.main([SAXPY, "-p", "autogpu-optimize{cache_probe=0}"]) == 1
    assert "error: gpu-cache-shared: probe must be at least 1, got 0" in capsys.readouterr().err

    infos = {o.name: o for o in adapter.pass_options("autogpu-optimize")}
    assert infos["cache_probe"].tuning_values == "[1, 2, 3]"
    code = autogpu_tune.main([SAXPY, "--size", "n=1000", "--backend", "cpu", "--list-space",
                              "--set", "block_size=64"])
    listed = json.loads(capsys.readouterr().out)
    assert code == 0
    assert listed["parameters"]["cache_probe"] == {"pass": "autogpu-optimize",
                                                   "option": "cache_probe", "values": [1, 2, 3]}


def test_a_knob_no_pipeline_reached_before_is_tunable(capsys):
    """agpu-dense-indexing's `mode` (auto, dense or sparse indexing of strided loops) had no
    pipeline option; now `autogpu-optimize{dense_mode=...}` and the tuner reach it."""
    code = autogpu_tune.main([SAXPY, "--size", "n=1000", "--backend", "cpu", "--list-space",
                              "--set", 'dense_mode=["auto", "sparse"]', "--set", "block_size=64"])
    listed = json.loads(capsys.readouterr().out)
    assert code == 0
    assert listed["parameters"]["dense_mode"]["values"] == ["auto", "sparse"]
