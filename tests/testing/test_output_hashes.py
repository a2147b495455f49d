"""The refactoring fingerprint tool: RUN-line extraction and the comparison it reports."""

from pathlib import Path

from autogpu.testing.output_hashes import compare, run_lines, space_sample


def test_run_lines_substitute_the_file_and_examples(tmp_path: Path) -> None:
    test = tmp_path / "t.mlir"
    test.write_text("// RUN: not autogpu-opt %s -p 'x{a=1}' 2>&1 | filecheck %s\n"
                    "// RUN: autogpu-opt %examples/saxpy.c | filecheck %s\n// CHECK: x\n")
    first, second = run_lines(test)
    assert first == f"autogpu-opt {test} -p 'x{{a=1}}' 2>&1"
    assert second.endswith("examples/saxpy.c")
    assert "%" not in second


def test_compare_names_every_kind_of_difference() -> None:
    before = {"a": {"ir": "1"}, "b": {"ir": "2"}, "gone": {"ir": "3"}}
    after = {"a": {"ir": "1"}, "b": {"ir": "9", "cuda": "4"}, "new": {"ir": "5"}}
    assert compare(before, after) == ["changed: b (cuda, ir)", "gone:    gone", "new:     new"]
    assert compare(before, before) == []


def test_space_sample_covers_every_value_of_every_option() -> None:
    sample = space_sample()
    for option in ("block_size", "unroll_x", "unroll_y", "unroll_serial", "cache"):
        assert len({config[option] for config in sample}) > 1
