"""`autogpu.compile`'s input: how it tells a path from source text, and pass options given as
keywords (quoted for the pipeline parser when they are strings)."""

from __future__ import annotations

from pathlib import Path

import pytest
from paths import EXAMPLES
from xdsl.utils.arg_spec import parse_pipeline

import autogpu
from autogpu.api import load_source, option_value
from autogpu.diagnostics import CompileError

MATMUL = str(EXAMPLES / "matmul.c")


def test_string_options_are_quoted_for_the_pipeline():
    kernel = autogpu.compile(MATMUL, "autogpu-optimize", sizes="m=64,n=64,p=64",
                             unroll_loops="k")
    assert kernel.pipeline == 'autogpu-optimize{sizes="m=64,n=64,p=64" unroll_loops="k"}'
    assert kernel.launch["requires"] == {"m": 64, "n": 64, "p": 64}


@pytest.mark.parametrize("value", ["m=64,n=64", 'a "quoted" \\ path', "tab\tand\nnewline",
                                   ("k", "u")])
def test_quoted_options_read_back_as_written(value: str | tuple[str, ...]):
    [spec] = parse_pipeline(f"p{{x={option_value(value)}}}")
    assert spec.parameters["x"] == (value if isinstance(value, tuple) else (value,))


@pytest.mark.parametrize("given, message", [
    ("x.cu", "x.cu is not a C file: autogpu compiles serial C from a .c file, or from source text"),
    (EXAMPLES.parent / "README.md", "README.md is not a C file"),
    (str(EXAMPLES), "examples: error: is a directory, not a source file"),
    ("missing.c", "no such C file: missing.c"),
    (Path("kernel.cu"), "kernel.cu is not a C file"),
])
def test_a_path_that_is_not_an_existing_c_file_is_a_clear_error(given: str | Path, message: str):
    with pytest.raises(CompileError, match=message.replace(".", r"\.")):
        autogpu.compile(given)


def test_source_text_is_told_from_a_path_by_its_newline_or_brace():
    line = "void f(float *a, int n) { for (int i = 0; i < n; i++) a[i] = 0.0f; }"
    assert load_source(line) == (line, "<source>")
    assert load_source(line.replace(" {", "\n{"))[1] == "<source>"
    assert autogpu.compile(line).name == "f"
    assert load_source(MATMUL) == (Path(MATMUL).read_text(), MATMUL)
