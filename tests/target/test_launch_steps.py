"""The host program of a launch description (`autogpu.target.launch_steps`): which launches
run, in which order, with which loop counters; malformed programs are refused when read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest

from autogpu.runtime.arguments import LaunchDescriptionError, parse_launch_description
from autogpu.target.launch_steps import check_steps, iterate_steps, steps_of, to_cxx, trace


def _loop(
    var: str, lb: str, ub: str, step: str, body: Sequence[Mapping[str, Any]], ctype: str = "int"
) -> dict[str, Any]:
    return {"for": {"var": var, "ctype": ctype, "lb": lb, "ub": ub, "step": step, "body": body}}


def test_without_steps_each_launch_runs_once_in_order():
    assert steps_of({"launches": [{}, {}, {}]}) == [{"launch": 0}, {"launch": 1}, {"launch": 2}]
    assert [i for i, _ in trace(steps_of({"launches": [{}, {}]}), {})] == [0, 1]


def test_nested_loops_and_ifs_run_as_c_would():
    steps = [{"launch": 0},
             _loop("t", "n - 1", "-1 + 2 * n", "2", [
                 _loop("s", "0", "t", "1", [{"launch": 1}], ctype="long long"),
                 {"if": {"cond": "t % 3 == 0 || n < 0", "then": [{"launch": 2}],
                         "else": [{"launch": 3}]}}]),
             {"launch": 4}]  # fmt: skip
    runs = [(i, {k: int(v) for k, v in env.items() if k != "n"})
            for i, env in trace(steps, {"n": np.int32(4)})]
    expected: list[tuple[int, dict[str, int]]] = [(0, {})]
    for t in range(3, 7, 2):  # t = 3, 5
        expected += [(1, {"t": t, "s": s}) for s in range(t)]
        expected.append((2 if t % 3 == 0 else 3, {"t": t}))
    expected.append((4, {}))  # the counters are out of scope after their loop
    assert runs == expected
    (_, env), *_ = [r for r in trace(steps, {"n": np.int32(4)}) if r[0] == 1]
    assert env["t"].dtype == np.int32
    assert env["s"].dtype == np.int64


def test_an_empty_loop_runs_nothing():
    assert list(trace([_loop("t", "0", "n", "1", [{"launch": 0}])], {"n": 0})) == []


# (steps, the error it gets): JSON as a launch description holds it, malformed.
MALFORMED: list[tuple[Any, str]] = [
    ({"launch": 0}, "must be a list"),
    ([{"launch": 2}], "names no launch"),
    ([{"launch": 0, "if": {}}], "one of launch, for, if"),
    ([{"repeat": {}}], "one of launch, for, if, while, read"),
    ([{"while": {"cond": "1", "body": []}}], "'while' step has no before"),
    ([{"read": {"var": "c", "global": "g", "ctype": "float"}}], "not an integer type"),
    ([{"read": {"var": "n", "global": "g", "ctype": "int"}}], "'n' is already a name"),
    ([{"read": {"var": "c", "global": "g[0]", "ctype": "int"}}], "names no device variable"),
    ([{"read": {"var": "c", "ctype": "int"}}], "'read' step has no global"),
    ([_loop("n", "0", "1", "1", [])], "'n' is already a name"),
    ([_loop("t", "0", "1", "1", [_loop("t", "0", "1", "1", [])])], "'t' is already a name"),
    ([_loop("t", "0", "1", "1", [], ctype="double")], "not an integer type"),
    ([{"for": {"var": "t", "ctype": "int", "lb": "0", "body": []}}], "has no step, ub"),
    ([{"if": {"then": []}}], "needs 'cond' and 'then'"),
]  # fmt: skip


@pytest.mark.parametrize("steps, message", MALFORMED)
def test_malformed_programs_are_refused(steps: Any, message: str):
    with pytest.raises(ValueError, match=message):
        check_steps(steps, 1, {"n"})


def test_a_launch_may_pass_a_counter_but_no_unknown_name():
    params = [{"name": "n", "kind": "scalar", "dtype": "int32"}]
    launch = {"kernel": "k", "grid": ["1"], "block": ["1"], "args": ["n", "t"]}
    function = {"name": "f", "params": params, "launches": [launch],
                "steps": [_loop("t", "0", "n", "1", [{"launch": 0}])]}
    (parsed,) = parse_launch_description({"functions": [function]}).values()
    assert parsed.param("t").dtype == np.int32
    assert not parsed.param("t").is_array
    del function["steps"]
    with pytest.raises(LaunchDescriptionError, match="passes 't', which is not a parameter"):
        parse_launch_description({"functions": [function]})


def test_a_while_reads_the_device_after_the_launches_before_it():
    """`while` runs `before`, tests, runs `body`; a `read` sees what the launches yielded
    before it did (here a counter the consumer keeps, as a kernel would on the device)."""
    steps = [{"launch": 0},
             {"while": {"before": [{"launch": 1},
                                   {"read": {"var": "go", "global": "g", "ctype": "bool"}}],
                        "cond": "go && n > 0", "body": [{"launch": 2}]}}]  # fmt: skip
    device = {"count": 0}
    order: list[object] = []

    def read(variable: str, ctype: str) -> object:
        assert (variable, ctype) == ("g", "bool")
        order.append("read")
        return np.bool_(device["count"] < 3)

    for index, env in iterate_steps(steps, {"n": np.int32(1)}, read):
        order.append(index)
        if index == 1:
            device["count"] += 1
        if index == 2:
            assert env["go"] == 1
    assert order == [0, 1, "read", 2, 1, "read", 2, 1, "read"]


def test_a_program_that_reads_needs_a_reader():
    steps = [{"read": {"var": "go", "global": "g", "ctype": "int"}},
             {"if": {"cond": "go", "then": [{"launch": 0}]}}]
    with pytest.raises(ValueError, match="reads the device variable 'g'"):
        list(iterate_steps(steps, {}))


def test_the_cxx_program_reads_with_cuda_memcpy_from_symbol():
    steps = [{"while": {"before": [{"launch": 0},
                                   {"read": {"var": "go", "global": "f_go", "ctype": "bool"}}],
                        "cond": "go", "body": [{"launch": 1}]}}]  # fmt: skip
    lines = to_cxx(steps, lambda e: e, lambda i: [f"launch{i}();"])
    assert lines == ["  for (;;) {", "    launch0();",
                     "    bool go; cudaMemcpyFromSymbol(&go, f_go, sizeof(bool));",
                     "    if (!(go)) break;", "    launch1();", "  }"]
