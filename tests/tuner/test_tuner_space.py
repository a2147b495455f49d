"""The tuner's search space: the safe expression language, value generators, spaces built from
pass options, restrictions (built-in, from passes, from users) and space files."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest

from autogpu.diagnostics import CompileError
from autogpu.passes.options import parallel_unroll, threads
from autogpu.tuner import expr
from autogpu.tuner.adapter import OptionInfo, PassSpec, format_pipeline, pass_options
from autogpu.tuner.space import (
    GENERATORS,
    Restriction,
    Space,
    build_space,
    divisors,
    load_space_file,
    multiples,
    pow2,
    product_of,
    seq,
)

# --- expressions -----------------------------------------------------------------------------


def test_expressions_evaluate_python_and_c_operators():
    env = {"block_size": 256, "unroll": 4, "n": 1000}
    assert expr.evaluate("block_size * unroll <= 1024", env) is True
    assert expr.evaluate("block_size * unroll < 1024", env) is False
    assert expr.evaluate("n % unroll == 0 && !(block_size > 512)", env) is True
    assert expr.evaluate("n % 3 == 0 || unroll != 4", env) is False
    assert expr.evaluate("ceil_div(n, block_size)", env) == 4
    assert expr.evaluate("min(n, 10) if is_power_of_two(block_size) else 0", env) == 10
    assert expr.parse("a * b + n").names == {"a", "b", "n"}


@pytest.mark.parametrize("text", [
    "__import__('os').system('true')",
    "block_size.__class__",
    "(lambda: 1)()",
    "[x for x in range(3)]",
    "open('f')",
    "globals()",
    "a[0]",
    "_secret + 1",
])
def test_expressions_reject_anything_beyond_the_whitelist(text: str):
    with pytest.raises(CompileError):
        expr.evaluate(text, {"block_size": 1, "a": [1], "_secret": 2})


def test_expressions_report_unknown_names_and_bounded_powers():
    with pytest.raises(CompileError, match="unknown name 'm'"):
        expr.evaluate("m * 2", {"n": 1})
    with pytest.raises(CompileError, match="too large"):
        expr.evaluate("2 ** 100000", {})
    with pytest.raises(CompileError, match="division by zero"):
        expr.evaluate("n / 0", {"n": 1})
    with pytest.raises(CompileError, match="invalid expression"):
        expr.parse("n *")


def test_generators():
    assert pow2(32, 1024) == [32, 64, 128, 256, 512, 1024]
    assert pow2(33, 100) == [64]
    assert seq(1, 9, 4) == [1, 5, 9]
    assert divisors(12) == [1, 2, 3, 4, 6, 12]
    assert divisors(1000, 4, 50) == [4, 5, 8, 10, 20, 25, 40, 50]
    assert multiples(32, 40, 130) == [64, 96, 128]
    assert expr.evaluate("divisors(n, 2, 8)", {"n": 24}, GENERATORS) == [2, 3, 4, 6, 8]


def test_generators_are_bounded_before_anything_is_materialised():
    """seq(1, 10**9) exhausted the memory and divisors(2**62, 1, 64) ran for minutes."""
    for call in ("seq(1, 20000)", "range(20000)", "multiples(1, 1, 20000)", "[0] * 20000"):
        with pytest.raises(CompileError, match="more than the limit of 10000"):
            expr.evaluate(call, {}, GENERATORS)
    with pytest.raises(CompileError, match=r"is too large \(more than 1024 bits\)"):
        expr.evaluate("((2 ** 64) ** 64) ** 64", {})
    assert divisors(2**62, 1, 64) == [1, 2, 4, 8, 16, 32, 64]
    assert divisors(2**40 * 3, 1000, 2000) == [1024, 1536]
    with pytest.raises(ValueError, match="narrow \\[lo, hi\\]"):
        divisors(2**62)
    with pytest.raises(ValueError, match="expected a positive number"):
        multiples(0, 1, 8)


def test_divisors_agree_with_a_plain_search():
    for n in (1, 2, 12, 97, 1000, 1 << 20, 360360):
        for lo, hi in ((1, None), (2, 7), (5, 64), (100, 10**6), (9, 3)):
            expected = [d for d in range(1, n + 1)
                        if n % d == 0 and d >= lo and (hi is None or d <= hi)]
            assert divisors(n, lo, hi) == expected


def test_the_number_of_values_and_of_configurations_is_bounded():
    with pytest.raises(CompileError, match="block_size has 20000 candidate values, more "
                                           "than the limit of 10000"):
        _space(overrides={"block_size": range(20000)})
    with pytest.raises(CompileError, match="the search space has 25000000 configurations, more "
                                           "than the limit of 100000: give fewer values to its "
                                           "largest parameters \\(block_size: 5000 values"):
        _space(options=OPTIMIZE[:3], dims=1, overrides={"block_size": "seq(1, 5000)",
                                                        "unroll": "seq(1, 5000)"})


# --- spaces from pass options ------------------------------------------------------------------

# Options as the adapter reads them off a pass: tuning values from their declarations.
OPTIMIZE = [
    OptionInfo("block_size", "int", 256, None, "pow2(32, 512)", True),
    OptionInfo("block_y", "int", 1, None, "pow2(1, 16)", True),
    OptionInfo("unroll", "int", 1, None, "[1, 2, 4, 8]", True),
    OptionInfo("serial_unroll", "int", 1, None, "[1, 2, 4, 8, 16]", True),
    OptionInfo("use_shared_cache", "bool", False, None, "[false, true]", True),
    OptionInfo("debug", "bool", False, None, None, True),
    OptionInfo("threshold", "int", 64, None, None, True),
    OptionInfo("mode", "str", "dense", None, None, True),
]
ROLES = {"block_size": threads(0), "block_y": threads(1), "unroll": parallel_unroll(0)}


def _space(options: list[OptionInfo] = OPTIMIZE, dims: int = 2, **kwargs: Any) -> Space:
    return build_space([PassSpec("autogpu-optimize", {})], {"autogpu-optimize": options},
                       {"n": 100}, parallel_dims=dims, roles={"autogpu-optimize": ROLES},
                       **kwargs)


def test_declared_values_are_the_default_and_undeclared_options_stay_fixed():
    space = _space()
    values = {p.name: p.values for p in space.parameters}
    assert values["block_size"] == (32, 64, 128, 256, 512)
    assert values["block_y"] == (1, 2, 4, 8, 16)
    assert values["unroll"] == (1, 2, 4, 8)
    assert values["serial_unroll"] == (1, 2, 4, 8, 16)
    assert values["use_shared_cache"] == (False, True)
    assert set(values) == {"block_size", "block_y", "unroll", "serial_unroll", "use_shared_cache"}
    assert space.fixed == {"autogpu-optimize.debug": False, "autogpu-optimize.threshold": 64,
                           "autogpu-optimize.mode": "dense"}


def test_vanilla_block_size_spans_every_legal_width():
    (block_size,) = [o for o in pass_options("autogpu-vanilla") if o.name == "block_size"]
    assert block_size.tuning_values == "pow2(32, 1024)"


def test_roles_not_names_say_what_an_option_means():
    """An option's declared role, never its name, makes it a block dimension (bounded by
    max_threads) or an axis the kernel may lack."""
    options = [OptionInfo("block_y", "int", 1, None, "[1, 2]", True),
               OptionInfo("width", "int", 32, None, "[32, 64]", True),
               OptionInfo("rows", "int", 1, None, "[1, 2]", True),
               OptionInfo("depth", "int", 1, None, "[1, 2]", True)]
    space = build_space([PassSpec("p", {})], {"p": options}, {}, parallel_dims=2,
                        roles={"p": {"width": threads(0), "rows": threads(1),
                                     "depth": parallel_unroll(2)}})
    assert space.names == ["block_y", "width", "rows"]  # depth: the kernel has no z axis
    assert space.fixed == {"p.depth": 1}
    assert [r.description for r in space.restrictions] == \
        ["threads per block: width * rows <= max_threads"]


def test_roles_of_registered_passes_come_from_their_declarations():
    space = build_space([PassSpec("convert-agpu-to-gpu", {})],
                        {"convert-agpu-to-gpu": pass_options("convert-agpu-to-gpu")}, {},
                        parallel_dims=1, overrides={"block_y": [1, 2]})
    assert space.parameter("block_y").role == threads(1)
    assert space.restrictions[0].description == \
        "threads per block: block_size * block_y <= max_threads"


def test_axes_the_kernel_does_not_have_are_not_tuned():
    space = _space(dims=1)
    assert "block_y" not in space.names
    assert space.fixed["autogpu-optimize.block_y"] == 1


def test_threads_per_block_restriction_prunes_the_product():
    space = _space(options=OPTIMIZE[:2], dims=2)
    configs = space.enumerate()
    assert all(c["block_size"] * c["block_y"] <= 1024 for c in configs)
    assert {"block_size": 512, "block_y": 2} in configs
    assert {"block_size": 512, "block_y": 4} not in configs
    # Exactly the product minus the violators.
    full = list(product_of(space))
    assert len(configs) == sum(1 for c in full if c["block_size"] * c["block_y"] <= 1024)


def test_user_restrictions_expressions_and_callables():
    def small_total(cfg: Mapping[str, Any]) -> bool:
        return cfg["block_size"] * cfg["unroll"] <= 256

    space = _space(options=OPTIMIZE[:3], dims=1,
                   restrictions=["n % unroll == 0", small_total])
    configs = space.enumerate()
    assert configs
    for c in configs:
        assert 100 % c["unroll"] == 0
        assert c["block_size"] * c["unroll"] <= 256
    assert {"block_size": 64, "unroll": 4} in configs
    assert {"block_size": 64, "unroll": 8} not in configs  # 100 % 8 != 0


def test_restriction_on_an_unknown_name_is_a_clear_error():
    with pytest.raises(CompileError, match="names unroll_q, which is neither a parameter"):
        _space(restrictions=["unroll_q > 1"]).enumerate()


def test_overrides_generators_and_qualified_names():
    space = _space(overrides={"block_size": "pow2(64, 128)",
                              "autogpu-optimize.unroll": [1, 2],
                              "serial_unroll": "divisors(n, 1, 4)"})
    values = {p.name: p.values for p in space.parameters}
    assert values["block_size"] == (64, 128)
    assert values["unroll"] == (1, 2)
    assert values["serial_unroll"] == (1, 2, 4)


def test_override_of_an_unknown_option_names_the_options():
    with pytest.raises(CompileError, match=r"not an option of the pipeline.*block_size"):
        _space(overrides={"blocksize": [1]})


def test_options_fixed_in_the_pipeline_string_are_not_tuned():
    space = build_space([PassSpec("p", {"block_size": (128,)})], {"p": OPTIMIZE[:3]}, {},
                        parallel_dims=1, roles={"p": ROLES})
    assert "block_size" not in space.names
    assert space.fixed["p.block_size"] == [128]
    with pytest.raises(CompileError, match="fixed in the pipeline string"):
        build_space([PassSpec("p", {"block_size": (128,)})], {"p": OPTIMIZE[:3]}, {},
                    overrides={"block_size": [64]})


def test_restrictions_see_fixed_options_and_pass_ones_over_fixed_options_only_are_dropped():
    def space(written: dict[str, tuple[Any, ...]], dims: int) -> Space:
        return build_space([PassSpec("p", written)], {"p": OPTIMIZE[:3]}, {"n": 100},
                           parallel_dims=dims, use_defaults=True, roles={"p": ROLES},
                           pass_restrictions={"p": ("unroll * block_y <= 4",)},
                           restrictions=["unroll <= n"])
    assert {c["block_y"] for c in space({"unroll": (2,)}, 2).enumerate()} == {1, 2}
    only_fixed = space({"unroll": (8,)}, 1)  # block_y: an axis saxpy-like kernels lack
    assert only_fixed.enumerate()
    assert "unroll * block_y <= 4" not in only_fixed.describe()[
        "restrictions"]
    assert "unroll <= n" in only_fixed.describe()["restrictions"]  # the user's stay


def test_tuple_options_become_one_parameter_per_component():
    options = [OptionInfo("unroll", "tuple", (1, 1), "int", "[1, 2, 4, 8]", True)]
    space = build_space([PassSpec("p", {})], {"p": options}, {}, parallel_dims=2,
                        overrides={"unroll_1": [1, 2]})
    assert space.names == ["unroll_0", "unroll_1"]
    assert space.parameter("unroll_0").values == (1, 2, 4, 8)
    passes = space.pipeline({"unroll_0": 4, "unroll_1": 2})
    assert passes[0].options["unroll"] == (4, 2)
    assert format_pipeline(passes) == "p{unroll=4,2}"


def test_pipeline_fills_values_into_each_pass():
    options = {"a": [OptionInfo("block_size", "int", 256)],
               "b": [OptionInfo("block_size", "int", 256),
                     OptionInfo("cache", "bool", False, None, "[false, true]", True)]}
    space = build_space([PassSpec("a", {}), PassSpec("b", {"x": (1,)})], options, {},
                        overrides={"a.block_size": [32], "b.block_size": [64]})
    assert space.names == ["a_block_size", "b_block_size", "cache"]
    config = space.enumerate()[0]
    assert format_pipeline(space.pipeline({**config, "cache": True})) == \
        "a{block_size=32},b{x=1 block_size=64 cache=true}"


def test_a_pass_can_declare_its_own_space_and_restrictions(monkeypatch: pytest.MonkeyPatch):
    from dataclasses import dataclass

    from xdsl.context import Context
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

    from autogpu.tuner import adapter

    @dataclass(frozen=True)
    class Declared(ModulePass):
        name = "declared"
        TUNING_SPACE: ClassVar[dict[str, str]] = {"tile": "pow2(8, 32)"}
        TUNING_RESTRICTIONS: ClassVar[tuple[str, ...]] = ("tile <= n",)
        tile: int = 16
        flag: bool = False

        def apply(self, ctx: Context, op: ModuleOp) -> None:
            pass

    monkeypatch.setattr(adapter, "_available_passes", lambda: {"declared": lambda: Declared})
    infos = pass_options("declared")
    assert infos[0] == OptionInfo("tile", "int", 16, None, "pow2(8, 32)", True)
    assert infos[1].tuning_values is None
    assert infos[1].pass_declares_space
    space = build_space([PassSpec("declared", {})], {"declared": infos}, {"n": 16},
                        pass_restrictions={"declared": adapter.pass_restrictions("declared")})
    assert space.enumerate() == [{"tile": 8}, {"tile": 16}]


def test_empty_values_are_an_error():
    with pytest.raises(CompileError, match="no candidate values"):
        _space(overrides={"block_size": "pow2(3, 3)"})


# --- space files -------------------------------------------------------------------------------


def test_space_files_in_json_and_toml(tmp_path: Path):
    js = tmp_path / "space.json"
    js.write_text(json.dumps({"parameters": {"block_size": [32, 64]},
                              "restrictions": ["block_size >= 64"], "arrays": {"x": "n"}}))
    toml = tmp_path / "space.toml"
    toml.write_text('restrictions = ["block_size >= 64"]\n[parameters]\n'
                    'block_size = "pow2(32, 64)"\n[arrays]\nx = "n"\n[sizes]\nn = 10\n')
    for path in (js, toml):
        sf = load_space_file(path)
        assert sf.arrays == {"x": "n"}
        space = _space(options=OPTIMIZE[:1], overrides=sf.parameters,
                       restrictions=sf.restrictions)
        assert space.enumerate() == [{"block_size": 64}]
    assert load_space_file(toml).sizes == {"n": 10}


def test_bad_space_files(tmp_path: Path):
    with pytest.raises(CompileError, match="no such space file"):
        load_space_file(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    with pytest.raises(CompileError, match="not valid JSON"):
        load_space_file(bad)
    extra = tmp_path / "extra.json"
    extra.write_text('{"params": {}}')
    with pytest.raises(CompileError, match="unknown keys params"):
        load_space_file(extra)


def test_restriction_objects():
    r = Restriction.from_expression("a < b")
    assert r.names == {"a", "b"}
    assert r({"a": 1, "b": 2})
    assert not r({"a": 2, "b": 1})
