"""Array parameter extents that are expressions (`frontend/extents.py`): the text the launch
description carries evaluates, in `launch.evaluate`, to what gcc computes for the C expression,
at values where C's conversions matter (0 - 1 in unsigned, negative division, 2^32 wrap)."""

from __future__ import annotations

import itertools
import shutil

import numpy as np
import pytest
from xdsl.dialects import func

from autogpu.dialects.signature import CParameter, CSignature
from autogpu.frontend import parse_c
from autogpu.target.launch import evaluate
from autogpu.testing import compile_c_reference

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

PARAMS = "int n, unsigned u, long l, unsigned long ul"
EXTENTS = [
    "n + 1", "2 * n - 1", "n / 3", "n % 4 + 5", "u - 1", "u * 3u / 2", "(int)u + n",
    "(unsigned)n % 3", "l / 2 - n", "ul - 1", "ul / 7 + u", "-n + 100", "(long)u * 2 - l",
]
VALUES = [
    dict(n=n, u=u, l=l, ul=ul)
    for n, u, l, ul in itertools.product((0, 7, -9), (0, 1, 4294967295), (-11, 2**40),
                                         (0, 2**63 + 3))
]


def written_extent(param: CParameter) -> str:
    """The text of `param`'s second extent (`a[2][e]`), as the frontend recorded it."""
    assert param.extents is not None, param
    text = param.extents[1]
    assert isinstance(text, str), param
    return text


def test_extent_texts_evaluate_as_gcc_computes():
    declared = ", ".join(f"float a{k}[2][{e}]" for k, e in enumerate(EXTENTS))
    source = f"void f({PARAMS}, {declared}) {{ }}\n"
    (fn,) = parse_c(source).ops
    assert isinstance(fn, func.FuncOp)
    texts = [written_extent(p) for p in CSignature.of(fn).params[4:]]
    body = "\n".join(f"  out[{k}] = (unsigned long long)({e});" for k, e in enumerate(EXTENTS))
    reference = compile_c_reference(
        f"void g({PARAMS}, unsigned long long *out) {{\n{body}\n}}\n", "g")
    for values in VALUES:
        out = np.zeros(len(EXTENTS), np.uint64)
        reference(*values.values(), out)
        for extent, text, expected in zip(EXTENTS, texts, out):
            got = evaluate(text, values) % 2**64
            assert got == int(expected), (extent, text, values)
