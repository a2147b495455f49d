"""The legality check of `#pragma omp parallel for` (autogpu/passes/analysis/dependences.py):
iterations that provably touch one element are an error naming both accesses, pairs of accesses
the check cannot decide a warning (an error under `werror`), and loops it proves parallel
compile silently and still agree with gcc's serial build, the CUDA threads run in reverse order."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from lowered_differential import check_against_gcc
from paths import EXAMPLES
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

import autogpu
import autogpu.frontend
from autogpu.api import run_pipeline
from autogpu.context import make_context
from autogpu.diagnostics import CompileError
from autogpu.frontend import parse_c
from autogpu.passes.analysis.dependences import check_parallel_loops, parallel_loop_findings
from autogpu.passes.utils.errors import PassError


def unlocated(message: str) -> str:
    """`message` without the " (line L:C)" that locates the other access of a pair."""
    return re.sub(r" \(line \d+:\d+\)", "", message)


def compiled(source: str) -> tuple[ModuleOp, list[CompileError]]:
    """The frontend's module of `source` and the warnings it gave."""
    warnings: list[CompileError] = []
    module = parse_c(source, "k.c", warn=warnings.append)
    return module, warnings


def kernel(body: str, params: str = "float *a, int n") -> str:
    return f"void k({params}) {{\n{body}\n}}\n"


# --- proven conflicts: errors ------------------------------------------------------------------
CONFLICTS = {
    "previous element": (
        kernel("#pragma omp parallel for\n  for (int i = 1; i < n; i++) a[i] = a[i - 1] + 1;"),
        "iterations of the parallel loop over 'i' conflict: 'a[i]' written here by the iteration"
        " with i = 1 is read as 'a[i - 1]' by the iteration with i = 2; the loop is not parallel",
    ),
    "next element": (
        kernel("#pragma omp parallel for\n  for (int i = 0; i < n - 1; i++) a[i] = a[i + 1] + 1;"),
        "'a[i]' written here by the iteration with i = 1 is read as 'a[i + 1]' by the iteration "
        "with i = 0",
    ),
    "in-place transpose under collapse(2)": (
        kernel(
            "#pragma omp parallel for collapse(2)\n"
            "  for (int i = 0; i < n; i++)\n"
            "    for (int j = 0; j < n; j++) {\n"
            "      float t = a[i * n + j]; a[i * n + j] = a[j * n + i]; a[j * n + i] = t;\n"
            "    }"
        ),
        "'a[i * n + j]' written here by the iteration with i = 0, j = 1 is read as "
        "'a[j * n + i]' by the iteration with i = 1, j = 0",
    ),
    "accumulation without a reduction clause": (
        kernel(
            "#pragma omp parallel for\n  for (int i = 0; i < n; i++) out[0] += x[i];",
            "const float *x, float *out, int n",
        ),
        "every iteration of the parallel loop over 'i' reads and writes the same element "
        "'out[0]'; the loop is not parallel (to combine values from all iterations, accumulate "
        "them in a local scalar listed in 'reduction(+: ...)' and store it after the loop)",
    ),
    "every iteration stores one element": (
        kernel(
            "#pragma omp parallel for\n  for (int i = 0; i < n; i++) last[0] = x[i];",
            "const float *x, float *last, int n",
        ),
        "every iteration of the parallel loop over 'i' writes the same element 'last[0]'",
    ),
    "every iteration writes a whole row": (
        kernel(
            "#pragma omp parallel for\n  for (int i = 0; i < n; i++)\n"
            "    for (int k = 0; k < m; k++) row[k] = x[i * m + k];",
            "const float *x, float *row, int n, int m",
        ),
        "'row[k]' written here by the iteration with i = 0, k = 0 is written again by the "
        "iteration with i = 1, k = 0",
    ),
    "in-place stencil on a C99 array": (
        kernel(
            "#pragma omp parallel for collapse(2)\n"
            "  for (int i = 1; i < n - 1; i++)\n"
            "    for (int j = 1; j < m - 1; j++) a[i][j] = (a[i - 1][j] + a[i + 1][j]) / 2;",
            "int n, int m, float a[n][m]",
        ),
        "'a[i * m + j]' written here by the iteration with i = 1, j = 1 is read as "
        "'a[(i - 1) * m + j]' by the iteration with i = 2, j = 1",
    ),
    "reversal": (
        kernel("#pragma omp parallel for\n  for (int i = 0; i < n; i++) a[i] = a[n - 1 - i];"),
        "'a[i]' written here by the iteration with i = 0 is read as 'a[n - 1 - i]' by the "
        "iteration with i = n - 1",
    ),
    "decreasing loop": (
        kernel("#pragma omp parallel for\n  for (int i = n - 1; i > 0; i--) a[i] = a[i - 1];"),
        "'a[i]' written here by the iteration with i = n - 2 is read as 'a[i - 1]' by the "
        "iteration with i = n - 1",
    ),
    "a stride of the step": (
        kernel("#pragma omp parallel for\n  for (int i = 0; i < n; i += 2) a[i] = a[i + 2];"),
        "'a[i]' written here by the iteration with i = 2 is read as 'a[i + 2]' by the iteration "
        "with i = 0",
    ),
    "an unsigned loop": (
        kernel(
            "#pragma omp parallel for\n  for (unsigned i = 1; i < n; i++) a[i] = a[i - 1];",
            "float *a, unsigned n",
        ),
        "'a[i]' written here by the iteration with i = 1 is read as 'a[i - 1]' by the iteration "
        "with i = 2",
    ),
    "the inner loop of a collapsed nest": (
        kernel(
            "#pragma omp parallel for collapse(2)\n"
            "  for (int i = 0; i < n; i++)\n"
            "    for (int j = 1; j < m; j++) a[i * m + j] = a[i * m + j - 1];",
            "float *a, int n, int m",
        ),
        "iterations of the parallel loop over 'j' conflict: 'a[i * m + j]' written here by the "
        "iteration with j = 1 is read as 'a[i * m + j - 1]' by the iteration with j = 2",
    ),
}


@pytest.mark.parametrize("case", CONFLICTS, ids=list(CONFLICTS))
def test_proven_conflict_is_an_error_naming_both_accesses(case: str):
    source, message = CONFLICTS[case]
    with pytest.raises(CompileError) as error:
        parse_c(source, "k.c")
    assert error.value.severity == "error"
    assert message in unlocated(error.value.message)


SHIFT_IR = """
func.func @shift(%a: memref<?xf32>, %n: i32) {
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %i = %c1 to %n step %c1 : i32 {
    %im1 = arith.subi %i, %c1 : i32
    %p = arith.index_cast %im1 : i32 to index
    %v = memref.load %a[%p] : memref<?xf32>
    %ii = arith.index_cast %i : i32 to index
    memref.store %v, %a[%ii] : memref<?xf32>
  }
  func.return
}"""


def test_conflict_in_ir_given_directly_is_refused_by_the_lowering():
    """IR that never went through the frontend: convert-agpu-to-gpu checks it itself."""
    module = Parser(make_context(), SHIFT_IR).parse_module()
    with pytest.raises(PassError, match="iterations of the parallel loop over 'i' conflict"):
        run_pipeline(module, "autogpu-vanilla")


# --- unprovable: warnings ----------------------------------------------------------------------
UNPROVABLE = {
    "indirect index": (
        kernel(
            "#pragma omp parallel for\n  for (int i = 0; i < n; i++) a[idx[i]] += 1;",
            "float *a, const int *idx, int n",
        ),
        "'a[idx[i]]' written here and 'a[idx[i]]' read may be the same element in two "
        "iterations ('idx[i]' is read from memory)",
    ),
    "an offset that is a parameter": (
        kernel(
            "#pragma omp parallel for\n  for (int i = 0; i < n; i++) a[i] = a[i + k];",
            "float *a, int n, int k",
        ),
        "'a[i]' written here and 'a[i + k]' read may be the same element in two iterations;",
    ),
    "an offset unrelated to the trip count": (
        kernel(
            "#pragma omp parallel for\n  for (int i = 0; i < m; i++) a[i] = a[i + n];",
            "float *a, int n, int m",
        ),
        "'a[i]' written here and 'a[i + n]' read may be the same element",
    ),
    "a non-affine index": (
        kernel("#pragma omp parallel for\n  for (int i = 0; i < n; i++) a[i / 2] = i;"),
        "'a[i / 2]' written here may be written by another iteration too ('i / 2' is not "
        "affine in the loop variables)",
    ),
    "a product of loop variables": (
        kernel(
            "#pragma omp parallel for collapse(2)\n  for (int i = 0; i < n; i++)\n"
            "    for (int j = 0; j < n; j++) a[i * j] = 1;"
        ),
        "'a[i * j]' written here may be written by another iteration too ('i * j' is not affine "
        "in the loop variables)",
    ),
    "a legal triangular transpose (j > i: beyond the check)": (
        kernel(
            "#pragma omp parallel for\n  for (int i = 0; i < n; i++)\n"
            "    for (int j = i + 1; j < n; j++) {\n"
            "      float t = a[i * n + j]; a[i * n + j] = a[j * n + i]; a[j * n + i] = t;\n"
            "    }"
        ),
        "'a[i * n + j]' written here and 'a[j * n + i]' read may be the same element in two "
        "iterations;",
    ),
    "a store under a condition": (
        kernel(
            "#pragma omp parallel for\n  for (int i = 0; i < n; i++) if (i == 0) out[0] = x[i];",
            "const float *x, float *out, int n",
        ),
        "'out[0]' written here may be written by another iteration too;",
    ),
}


@pytest.mark.parametrize("case", UNPROVABLE, ids=list(UNPROVABLE))
def test_unprovable_pair_is_a_warning_saying_what_the_pragma_asserts(case: str):
    source, message = UNPROVABLE[case]
    _, warnings = compiled(source)
    warning = warnings[0]  # (the transpose has a warning for each of its two stores)
    assert len(warnings) == (2 if "transpose" in case else 1)
    assert warning.severity == "warning"
    assert message in unlocated(warning.message)
    assert warning.message.startswith(
        "cannot prove that the iterations of the parallel loop over 'i' access different "
        "elements: "
    )
    assert warning.message.endswith(
        "'#pragma omp parallel for' asserts that no two iterations access the same element "
        "when one of them writes it"
    )


@pytest.mark.parametrize("case", UNPROVABLE, ids=list(UNPROVABLE))
def test_werror_makes_the_warning_an_error(case: str):
    source, message = UNPROVABLE[case]
    reported: list[CompileError] = []
    with pytest.raises(CompileError, match=r"warning\(s\) treated as errors \(--Werror\)"):
        parse_c(source, "k.c", warn=reported.append, werror=True)
    diagnostic = reported[0]
    assert diagnostic.severity == "error"
    assert message in unlocated(diagnostic.message)
    with pytest.raises(CompileError, match="treated as errors"):
        autogpu.compile(source, werror=True)


def test_pointers_that_may_overlap_are_unprovable_without_assume_no_alias():
    source = kernel(
        "#pragma omp parallel for\n  for (int i = 0; i < n; i++) { a[i] = b[i + 1]; c[i] = 0; }",
        "float *a, const float *b, float *restrict c, int n",
    )
    module, warnings = compiled(source)
    assert warnings == []  # the default: distinct parameters do not overlap
    (finding,) = parallel_loop_findings(module, assume_no_alias=False)
    assert not finding.proven
    assert (  # c is restrict: it overlaps nothing
        "'a[i]' written here and 'b[i + 1]' read may be the same element in two iterations "
        "('a' and 'b' are pointers that may overlap (neither is restrict))"
        in unlocated(finding.message)
    )
    reported: list[CompileError] = []
    check_parallel_loops(module, reported.append, assume_no_alias=False)
    assert [w.severity for w in reported] == ["warning"]


# --- proven independent: compiles silently and agrees with gcc ---------------------------------
INDEPENDENT: dict[str, tuple[str, Callable[[int], dict[str, int]]]] = {
    "strided halves": (
        kernel("#pragma omp parallel for\n  for (int i = 0; i < n; i++) a[2 * i] = a[2 * i + 1];"),
        lambda n: {"a": 2 * n, "n": n},
    ),
    "an offset of the trip count": (
        kernel("#pragma omp parallel for\n  for (int i = 0; i < n; i++) a[i] = a[i + n] * 2;"),
        lambda n: {"a": 2 * n, "n": n},
    ),
    "odd elements of an even-stepped loop": (
        kernel("#pragma omp parallel for\n  for (int i = 0; i < n; i += 2) a[i] = a[i + 1];"),
        lambda n: {"a": n + 1, "n": n},
    ),
    "a GCD test on the steps": (
        kernel(
            "#pragma omp parallel for\n  for (int i = 0; i < n; i += 2) a[3 * i] = a[2 * i + 1];"
        ),
        lambda n: {"a": 3 * n + 2, "n": n},
    ),
    "in place under collapse(2)": (
        kernel(
            "#pragma omp parallel for collapse(2)\n"
            "  for (int i = 0; i < m; i++)\n"
            "    for (int j = 0; j < n; j++) A[i * n + j] = A[i * n + j] * 2 + B[j];",
            "float *A, const float *B, int m, int n",
        ),
        lambda n: {"A": n * (n + 3), "B": n + 3, "m": n, "n": n + 3},
    ),
    "in place under collapse(3), long arithmetic": (
        kernel(
            "#pragma omp parallel for collapse(3)\n"
            "  for (int k = 0; k < p; k++)\n"
            "    for (int j = 0; j < m; j++)\n"
            "      for (long i = 0; i < n; i++) a[i + (long)j * n + (long)k * n * m] += i;",
            "float *a, int p, int m, int n",
        ),
        lambda n: {"a": 2 * 3 * n, "p": 2, "m": 3, "n": n},
    ),
    "a column per iteration, rows in a serial loop": (
        kernel(
            "#pragma omp parallel for\n  for (int j = 0; j < n; j++)\n"
            "    for (int i = 1; i < m; i++) a[i * n + j] += a[(i - 1) * n + j];",
            "float *a, int m, int n",
        ),
        lambda n: {"a": 4 * n, "m": 4, "n": n},
    ),
    "a prefix read, the rest written": (
        kernel(
            "#pragma omp parallel for\n  for (int i = 0; i < n; i++) {\n"
            "    float s = 0.0f;\n    for (int k = 0; k < t; k++) s += a[k];\n"
            "    a[t + i] = s;\n  }",
            "float *a, int n, int t",
        ),
        lambda n: {"a": n + 5, "n": n, "t": 5},
    ),
    "a triangle": (
        kernel(
            "#pragma omp parallel for\n  for (int i = 0; i < n; i++) {\n"
            "    float s = 0.0f;\n    for (int k = 0; k <= i; k++) s += L[k] * b[i - k];\n"
            "    x[i] = x[i] + s;\n  }",
            "int n, const float *L, const float *b, float *x",
        ),
        lambda n: {"n": n, "L": n, "b": n, "x": n},
    ),
    "a row scaled by its diagonal element": (
        kernel(
            "#pragma omp parallel for\n  for (int i = 0; i < n; i++) {\n"
            "    float d = A[i * n + i] + 4.0f;\n"
            "    for (int j = 0; j < n; j++) A[i * n + j] = A[i * n + j] / d;\n  }",
            "float *A, int n",
        ),
        lambda n: {"A": n * n, "n": n},
    ),
    "a red-black sweep": (
        kernel(
            "#pragma omp parallel for\n  for (int i = 1 + r % 2; i < n - 1; i += 2)\n"
            "    a[i] = (a[i - 1] + a[i + 1]) / 2;",
            "float *a, int n, int r",
        ),
        lambda n: {"a": n + 2, "n": n + 2, "r": n},
    ),
    "a decreasing loop": (
        kernel("#pragma omp parallel for\n  for (int i = n - 1; i >= 0; i--) a[i] = 2 * a[i];"),
        lambda n: {"a": n, "n": n},
    ),
    "a loop of four": (
        kernel("#pragma omp parallel for\n  for (int i = 0; i < 4; i++) a[i] = a[i + 4];"),
        lambda n: {"a": 8, "n": n},
    ),
}


@pytest.mark.parametrize("case", INDEPENDENT, ids=list(INDEPENDENT))
def test_proven_independent_compiles_silently_and_agrees_with_gcc(case: str):
    source, sizes = INDEPENDENT[case]
    _, warnings = compiled(source)
    assert warnings == []
    cases = [sizes(n) for n in (1, 37, 300)]
    check_against_gcc(source, "k", "autogpu-vanilla{block_size=32}", cases,
                      thread_order="reverse")  # fmt: skip


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.c")), ids=lambda p: p.name)
def test_examples_compile_without_a_warning(path: Path):
    _, warnings = compiled(path.read_text())
    assert warnings == []


def test_each_store_is_reported_once_at_the_outermost_loop(monkeypatch: pytest.MonkeyPatch):
    """A store that conflicts on both loops of a collapse(2) nest, with two loads: one finding,
    the outer loop's."""
    source = kernel(
        "#pragma omp parallel for collapse(2)\n  for (int i = 0; i < n; i++)\n"
        "    for (int j = 0; j < n; j++) out[0] += x[i * n + j] * out[0];",
        "const float *x, float *out, int n",
    )
    def skip_the_check(*args: object) -> None:
        """The frontend's check left out, so that its findings can be read here."""

    monkeypatch.setattr(autogpu.frontend, "check_parallel_loops", skip_the_check)
    (finding,) = parallel_loop_findings(parse_c(source, "k.c"))
    assert finding.proven
    assert finding.loop.induction_var.name_hint == "i"
    assert finding.message.startswith("every iteration of the parallel loop over 'i' ")


def test_werror_applies_to_every_frontend_warning():
    """--Werror is the frontend's, not the check's: a statement without effect fails too."""
    source = "void f(float *a) { a[0] == 1; }"
    reported: list[CompileError] = []
    with pytest.raises(CompileError, match=r"1 warning\(s\) treated as errors"):
        parse_c(source, "k.c", warn=reported.append, werror=True)
    assert [(w.severity, w.message) for w in reported] == [("error", "statement has no effect")]
    _, warnings = compiled(source)
    assert [w.severity for w in warnings] == ["warning"]


# --- soundness against brute force -------------------------------------------------------------
def _random_kernel(rng: random.Random) -> tuple[str, list[tuple[str, str, str, int]], str, str]:
    """A random nest (a parallel loop, maybe collapse(2), maybe a serial inner loop, maybe
    triangular or stepped) storing `a[W] = a[R] + 1`, half of them row-major-like indices."""
    loops = [("i", rng.choice(["0", "1"]), rng.choice(["n", "m", "n - 1", "4"]),
              rng.choice([1, 1, 2]))]  # fmt: skip
    if rng.random() < 0.4:
        loops.append(("j", rng.choice(["0", "1"]), rng.choice(["n", "m", "3"]), 1))
    if rng.random() < 0.5:
        loops.append(("k", "0", rng.choice(["n", "3", "i + 1", "i"]), 0))  # 0: serial
    names = [v for v, *_ in loops]

    def affine() -> str:
        terms = [f"({rng.choice(['0', '1', '2', '-1', 'n', 'm', '3'])})*{v}" for v in names]
        return " + ".join([*terms, f"({rng.choice(['0', '1', '-1', '2', 'n', 'm', 'n*m'])})"])

    if rng.random() < 0.5:
        write = affine()
        read = affine()
    else:
        stride = rng.choice(["n", "m"])
        write = f"i*{stride} + {names[-1] if len(names) > 1 else '0'}"
        read = f"{write} + ({rng.choice(['0', '1', '-1', 'n', 'm', stride, '2*' + stride])})"
    parallel = [loop for loop in loops if loop[3]]
    head = "#pragma omp parallel for" + (" collapse(2)" if len(parallel) == 2 else "")
    body = "".join(
        f"for (int {v} = {lo}; {v} < {hi}; {v} += {step or 1})\n" for v, lo, hi, step in loops
    )
    source = f"void f(float *a, int n, int m) {{\n{head}\n{body}a[{write}] = a[{read}] + 1;\n}}\n"
    return source, loops, write, read


def _conflicts(loops: list[tuple[str, str, str, int]], write: str, read: str, n: int, m: int) -> bool:
    """Whether two iterations of the parallel loops touch one element, one writing it: every
    iteration enumerated."""
    accesses: dict[int, set[tuple[tuple[int, ...], bool]]] = {}

    def run(level: int, env: dict[str, int], iteration: tuple[int, ...]) -> None:
        if level == len(loops):
            accesses.setdefault(eval(read, {}, env), set()).add((iteration, False))
            accesses.setdefault(eval(write, {}, env), set()).add((iteration, True))
            return
        v, lo, hi, step = loops[level]
        for x in range(eval(lo, {}, env), eval(hi, {}, env), step or 1):
            run(level + 1, {**env, v: x}, iteration + ((x,) if step else ()))

    run(0, {"n": n, "m": m}, ())
    return any(
        any(w for _, w in touches) and len({it for it, _ in touches}) > 1
        for touches in accesses.values()
    )


def test_verdicts_agree_with_brute_force_on_random_nests():
    """Nothing accepted conflicts for any of a few sizes; every error is a conflict at large
    sizes (warnings may go either way)."""
    rng = random.Random(2024)
    verdicts = {"accepted": 0, "error": 0, "warning": 0}
    for _ in range(120):
        source, loops, write, read = _random_kernel(rng)
        warnings: list[CompileError] = []
        error = ""  # the message, if the frontend rejects the kernel
        try:
            parse_c(source, "k.c", warn=warnings.append)
            verdict = "warning" if warnings else "accepted"
        except CompileError as e:
            error, verdict = e.message, "error"
        if verdict == "error":
            assert "the loop is not parallel" in error, source
        verdicts[verdict] += 1
        if verdict == "accepted":
            for n, m in ((3, 4), (5, 7), (6, 4), (8, 8), (2, 9), (9, 11)):
                assert not _conflicts(loops, write, read, n, m), (source, n, m)
        if verdict == "error":
            for n, m in ((9, 11), (12, 10)):
                assert _conflicts(loops, write, read, n, m), (source, n, m)
    assert min(verdicts.values()) >= 5, verdicts  # the sample exercises all three


# --- unsigned subscripts wrap modulo 2^32 ------------------------------------------------------
UNSIGNED_COEFFICIENTS = ["0u", "1u", "2u", "0x80000000u", "0x40000000u", "0xFFFFFFFFu", "n"]
UNSIGNED_OFFSETS = ["0u", "1u", "0x80000000u", "0xFFFFFFFFu", "0xC0000000u", "n", "m"]


def _random_unsigned_kernel(rng: random.Random):
    """A random nest over `unsigned` variables storing `a[W] = a[R] + 1` with unsigned
    subscripts whose coefficients and offsets make them wrap around 2^32 at small sizes
    (`i * 0x40000000u` repeats every 4 iterations)."""
    loops = [("i", "0", rng.choice(["n", "m", "8u", "8u"]), 1)]
    if rng.random() < 0.4:
        loops.append(("j", "0", rng.choice(["n", "3u", "3u"]), 1))
    names = [v for v, *_ in loops]

    def subscript() -> str:
        terms = [f"{rng.choice(UNSIGNED_COEFFICIENTS)} * {v}" for v in names]
        return " + ".join([*terms, rng.choice(UNSIGNED_OFFSETS)])

    write = subscript()
    read = rng.choice([subscript(), f"{write} + {rng.choice(UNSIGNED_OFFSETS)}"])
    head = "#pragma omp parallel for" + (" collapse(2)" if len(loops) == 2 else "")
    body = "".join(f"for (unsigned {v} = {lo}; {v} < {hi}; {v}++)\n" for v, lo, hi, _ in loops)
    source = (f"void f(float *a, unsigned n, unsigned m) {{\n{head}\n{body}"
              f"a[{write}] = a[{read}] + 1;\n}}\n")
    return source, loops, write, read


def _python(expression: str) -> str:
    """A C unsigned expression as Python, reduced modulo 2^32 as C computes it."""
    plain = re.sub(r"(0x[0-9A-F]+|\d+)u", r"\1", expression)
    return f"(({plain}) % (1 << 32))"


def test_unsigned_wrapping_verdicts_agree_with_brute_force():
    """Unsigned subscripts are exact modulo 2^32: nothing accepted conflicts (iterations `i`
    and `i + 2^31` of `a[2u * i]` touch one element), every error is a conflict."""
    rng = random.Random(7)
    verdicts = {"accepted": 0, "error": 0, "warning": 0}
    for _ in range(150):
        source, loops, write, read = _random_unsigned_kernel(rng)
        py_loops = [(v, lo, hi.rstrip("u"), step) for v, lo, hi, step in loops]
        warnings: list[CompileError] = []
        error = ""  # the message, if the frontend rejects the kernel
        try:
            parse_c(source, "k.c", warn=warnings.append)
            verdict = "warning" if warnings else "accepted"
        except CompileError as e:
            error, verdict = e.message, "error"
        if verdict == "error":
            assert "the loop is not parallel" in error, source
        verdicts[verdict] += 1
        if verdict == "accepted":
            for n, m in ((3, 4), (5, 7), (8, 8), (2, 9), (9, 11)):
                assert not _conflicts(py_loops, _python(write), _python(read), n, m), (
                    source, n, m)
        if verdict == "error":
            for n, m in ((9, 11), (12, 10)):
                assert _conflicts(py_loops, _python(write), _python(read), n, m), (source, n, m)
    assert min(verdicts.values()) >= 5, verdicts


@pytest.mark.parametrize(("loop", "verdict"), [
    # iterations i and i + 2^31 write one element once n > 2^31: not provably parallel
    ("for (unsigned i = 0; i < n; i++) a[2u * i] = a[2u * i + 1u];", "warning"),
    ("for (unsigned i = 0; i < n; i++) a[i * 65536u] = 1.0f;", "warning"),
    # i + 2^31 stays below 2^32 for i < 2^30: the element is the sum, never one of a[0..2^30)
    ("for (unsigned i = 0; i < 0x40000000u; i++) a[i] = a[i + 0x80000000u];", "accepted"),
    # `(unsigned)i * 2u` on int i < 2^31 never wraps
    ("for (int i = 0; i < m; i++) a[(unsigned)i * 2u] = a[(unsigned)i * 2u + 1u];",
     "accepted"),
    ("for (unsigned i = 1; i < n; i++) a[i] = a[i - 1u];", "error"),
    # off + i may wrap, but two iterations' elements differ by i - i', less than 2^32
    ("for (unsigned i = 0; i < n; i++) a[(unsigned)m + i] = 1.0f;", "accepted"),
    ("for (unsigned i = n; i > 0; i--) a[i - 1u] = (float)i;", "accepted"),
])
def test_unsigned_subscripts_are_exact_modulo_2_to_the_32(loop: str, verdict: str):
    source = kernel(f"#pragma omp parallel for\n  {loop}", "float *a, unsigned n, int m")
    try:
        _, warnings = compiled(source)
        found = "warning" if warnings else "accepted"
    except CompileError:
        found = "error"
    assert found == verdict


def test_unsigned_constant_reads_as_unsigned_in_the_warning():
    source = kernel("#pragma omp parallel for\n"
                    "  for (unsigned i = 0; i < n; i++) a[i] = a[i + 0x80000000u];",
                    "float *a, unsigned n")
    _, warnings = compiled(source)
    assert "'a[i + 2147483648u]' read" in warnings[0].message
