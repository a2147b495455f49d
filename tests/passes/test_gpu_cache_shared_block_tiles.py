"""gpu-cache-shared on kernels with register tiles (2D blocks whose parallel loops are
unroll-and-jammed): both operands of a matrix product cached in `__shared__` block tiles, one
k-tile at a time, for row-major, column-major and transposed layouts, the transposed operand
stored transposed in the tile. Differential tests against gcc's build of the serial C on the
CPU emulation, at sizes that divide nothing, with k = 0 and tiles larger than the problem, in
float, double and int (exact: the order of each output's sum is the serial one); nvcc compiles
every kernel."""

from __future__ import annotations

import functools
import re

import pytest
from guard_page_emulation import run_guarded
from lowered_differential import agree_with_gcc, example, one_translation_unit
from xdsl.dialects import memref
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp

from autogpu.api import parse_pipeline
from autogpu.context import make_context
from autogpu.frontend import parse_c
from autogpu.runtime.cpu_exec import CpuProgram
from autogpu.target.cuda_target import emit_cuda
from autogpu.testing.nvcc import assert_compiles_with_nvcc


def gemm(name: str, a_index: str, b_index: str, ctype: str = "float") -> str:
    """C (m x n, row-major) = sum over k of A[a_index] * B[b_index]; j (on x) innermost."""
    return f"""
void {name}(const {ctype} *A, const {ctype} *B, {ctype} *C, int m, int n, int p) {{
#pragma omp parallel for collapse(2)
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {{
      {ctype} s = 0;
      for (int k = 0; k < p; k++)
        s += A[{a_index}] * B[{b_index}];
      C[i * n + j] = s;
    }}
}}
"""


ROW_MAJOR = gemm("gemm_nn", "i * p + k", "k * n + j")
TRANSPOSED = gemm("gemm_tt", "k * m + i", "j * p + k")  # A stored p x m, B stored n x p
DOUBLE = gemm("dgemm_nt", "i * p + k", "j * p + k", "double")
INTEGER = gemm("igemm_tn", "k * m + i", "k * n + j", "int")
COLUMN_MAJOR = example("matmul.c")  # A[i + j*m] += B[i + k*m] * C[k + j*p], i on x


def pipeline(threads: str = "block_size=4 block_y=4", unroll: str = "x=2 y=2",
             tile: int = 4, full: bool = False) -> str:
    return (f"agpu-stage-accumulations{{assume_no_alias=true}},agpu-unroll-parallel{{{unroll}}},"
            f"autogpu-vanilla{{{threads}}},gpu-cache-shared{{assume_no_alias=true tile={tile}"
            f"{' full_tiles=true' if full else ''}}}")


TILED = "autogpu-tiled{block_size=4 block_y=4 tm=2 tn=3 bk=5}"
FULL_TILED = "autogpu-tiled{block_size=4 block_y=4 tm=2 tn=3 bk=5 cache_full_tiles=true}"


def sizes(m: int, n: int, p: int, a: str = "A", b: str = "B", c: str = "C") -> dict[str, int]:
    return {"m": m, "n": n, "p": p, a: max(m * p, 1), b: max(p * n, 1), c: max(m * n, 1)}


def colmajor(m: int, n: int, p: int) -> dict[str, int]:
    return {"m": m, "n": n, "p": p, "A": max(m * n, 1), "B": max(m * p, 1), "C": max(p * n, 1)}


ODD = [(17, 65, 130), (65, 17, 1), (1, 1, 1), (130, 3, 17), (9, 5, 0), (3, 2, 7), (0, 4, 3)]
# ... and sizes with whole blocks and whole k-tiles beside ragged ones (4095 x 4097 x 1023
# scaled down: one short of, one over and one short of a multiple of the tiles)
FULL = [*ODD, (24, 24, 40), (31, 33, 39), (16, 8, 8), (8, 16, 3)]

CASES = [
    # (id, source, function, pipeline, sizes)
    ("row-major", ROW_MAJOR, "gemm_nn", pipeline(), [sizes(*s) for s in ODD]),
    ("transposed", TRANSPOSED, "gemm_tt", pipeline(), [sizes(*s) for s in ODD]),
    ("double-nt", DOUBLE, "dgemm_nt", pipeline(unroll="x=3 y=2", tile=3),
     [sizes(*s) for s in ODD]),
    ("int-tn", INTEGER, "igemm_tn", pipeline("block_size=8 block_y=2", "x=2 y=4", 8),
     [sizes(*s) for s in ODD]),
    ("column-major", COLUMN_MAJOR, "matmul", pipeline(),
     [colmajor(*s) for s in ODD]),
    ("tiled-pipeline", ROW_MAJOR, "gemm_nn", TILED, [sizes(*s) for s in ODD]),
    # full tiles: whole blocks load their tiles unguarded, whole k-tiles run a constant loop
    ("full-row-major", ROW_MAJOR, "gemm_nn", pipeline(full=True), [sizes(*s) for s in FULL]),
    ("full-transposed", TRANSPOSED, "gemm_tt", pipeline(full=True),
     [sizes(*s) for s in FULL]),
    ("full-double-nt", DOUBLE, "dgemm_nt", pipeline(unroll="x=3 y=2", tile=3, full=True),
     [sizes(*s) for s in FULL]),
    ("full-int-tn", INTEGER, "igemm_tn", pipeline("block_size=8 block_y=2", "x=2 y=4", 8, True),
     [sizes(*s) for s in FULL]),
    ("full-column-major", COLUMN_MAJOR, "matmul", pipeline(full=True),
     [colmajor(*s) for s in FULL]),
    ("full-tiled-pipeline", ROW_MAJOR, "gemm_nn", FULL_TILED, [sizes(*s) for s in FULL]),
    ("tiled-specialised", TRANSPOSED, "gemm_tt",
     'autogpu-tiled{sizes="m=130,n=65,p=17" block_size=8 block_y=4 tm=2 tn=2 bk=4}',
     [sizes(130, 65, 17)]),
]  # fmt: skip


@functools.cache
def transformed(source: str, spec: str) -> ModuleOp:
    module = parse_c(source, "<test>")
    parse_pipeline(spec).apply(make_context(), module)
    module.verify()
    return module


def shared_arrays(module: ModuleOp) -> dict[str, tuple[int, ...]]:
    found: dict[str, tuple[int, ...]] = {}
    for op in module.walk():
        if isinstance(op, memref.AllocaOp):
            space = op.memref.type.memory_space
            assert isinstance(op.memref.type, MemRefType)
            if isinstance(space, IntegerAttr) and space.value.data == 3:
                assert op.memref.name_hint is not None  # the pass names its tiles
                found[op.memref.name_hint] = tuple(op.memref.type.get_shape())
    return found


@pytest.mark.parametrize("source, function, spec, cases", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_matches_gcc(source: str, function: str, spec: str, cases: list[dict[str, int]]):
    program = emit_cuda(transformed(source, spec))
    cpu = CpuProgram(program.source, program.launch, threads=1, thread_order="random")
    agree_with_gcc(cpu, source, function, cases)


def test_both_operands_are_tiled():
    """Each case caches a tile of both operands: BM x bk and bk x BN elements."""
    fired = {name: shared_arrays(transformed(source, spec)) for name, source, _, spec, _ in CASES}
    # 4x4 threads of 2x2 outputs: 8 rows of A, 8 columns of B, 4 steps of k
    assert fired["row-major"] == {"A_sh": (32,), "B_sh": (32,)}
    assert fired["transposed"] == {"A_sh": (32,), "B_sh": (32,)}
    assert fired["double-nt"] == {"A_sh": (24,), "B_sh": (36,)}  # 8 x 3 and 3 x 12
    assert fired["int-tn"] == {"A_sh": (64,), "B_sh": (128,)}  # 8 x 8 and 8 x 16
    assert fired["column-major"] == {"B_sh": (32,), "C_sh": (32,)}
    # tm on x (j), tn on y (i): 4 x 3 = 12 rows of A by 5 steps, 5 by 4 x 2 = 8 columns of B;
    # autogpu-tiled's blocked fragments store A (k fastest in the array) transposed, its 5
    # rows of 12 padded to 16 (cache_pad=4): 4 * 16 + 12 elements
    assert fired["tiled-pipeline"] == {"A_sh": (76,), "B_sh": (40,)}
    # p = 17 compiled in: the whole k range fits, so each block loads its 8 rows of A and 16
    # columns of B once (no strip-mining); B (`B[j*p + k]`, j on x) is stored transposed, its
    # 34 rows (k and the 2 replicas of j, 17 apart) of 8 threads padded to 12: 33 * 12 + 8
    assert fired["tiled-specialised"] == {"A_sh": (136,), "B_sh": (404,)}


def test_transposed_operand_is_stored_transposed():
    """`B[j*p + k]` with j on x: the tile holds k-rows of the 8 columns, so that a warp's
    reads (`B_sh[k_row + tx]`) fall into neighbouring banks; the cooperative load still walks
    k fastest (coalesced) and stores across."""
    source = emit_cuda(transformed(TRANSPOSED, pipeline())).source
    assert re.search(r"B_sh\[v\d+ \* 8ULL \+ v\d+\] = B\[", source), source
    assert re.search(r"B_sh\[v\d+ \+ tx\]", source), source
    row_major = emit_cuda(transformed(ROW_MAJOR, pipeline())).source
    assert re.search(r"B_sh\[e\] = B\[", row_major), row_major  # already in the reads' order


def test_register_tile_loads_each_fragment_once_per_step():
    """The jammed replicas of a thread read each operand element once per step of k: with
    tm x tn = 2 x 3 that is 2 + 3 shared reads for 6 products."""
    source = emit_cuda(transformed(ROW_MAJOR, pipeline(unroll="x=2 y=3"))).source
    body = source[source.index("for (int k = k_first"):]
    body = body[:body.index("}")]
    assert body.count("A_sh[") == 3, body
    assert body.count("B_sh[") == 2, body
    products = re.findall(r"\b(v\d+) \* (v\d+)\b", body)  # of two loaded values
    assert len(products) == 6, products
    assert len({a for a, _ in products}) == 3, products


def test_nvcc_compiles():
    programs = [emit_cuda(transformed(source, spec)) for _, source, _, spec, _ in CASES]
    assert_compiles_with_nvcc(one_translation_unit(programs))


CONV1D = """
void conv1d(const float *in, const float *w, float *out, int n, int t) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    float s = 0.0f;
    for (int k = 0; k < t; k++)
      s += in[i + k] * w[k];
    out[i] = s;
  }
}
"""


def test_a_window_along_the_loop_is_not_strip_mined(capfd: pytest.CaptureFixture[str]):
    """`in[i + k]`: the threads' windows overlap along k, so a k-tile of it would cut the
    window (and t is unknown): autogpu-tiled leaves it in global memory and says why; the
    template `w` still gets its k-tiles (of the default bk, 16). The kernel stays right.
    (Cyclic replicas: blocked ones split the window into a replica and a thread dimension,
    test_gemm_fragments.py::test_a_window_of_blocked_replicas_is_cached_whole.)"""
    spec = "autogpu-tiled{cache_remarks=true block_size=64 block_y=1 unroll_distribution=cyclic}"
    module = transformed(CONV1D, spec)
    err = capfd.readouterr().err
    assert "'in' not cached: the trip count of the loop over 'k' is not a compile-time" in err
    assert shared_arrays(module) == {"w_sh": (16,)}
    program = emit_cuda(module)
    cpu = CpuProgram(program.source, program.launch, threads=1, thread_order="random")
    agree_with_gcc(cpu, CONV1D, "conv1d", [
        {"n": n, "t": t, "in": n + t, "w": max(t, 1), "out": max(n, 1)}
        for n, t in ((130, 17), (1, 1), (65, 0), (3, 9))])


@pytest.mark.parametrize("case", [c for c in CASES if c[0].startswith("full-")],
                         ids=[c[0] for c in CASES if c[0].startswith("full-")])
def test_whole_tile_copies_never_read_past_an_array(
        case: tuple[str, str, str, str, list[dict[str, int]]]):
    """The unguarded copy runs only where every element of the tile is one the loads read:
    with each array ending at an unreadable page, the ragged sizes (a block or a k-tile one
    short of whole, tiles larger than the problem, k = 0) still match gcc, instead of the
    copy reading past the end (which the differential test cannot see: no thread uses
    those elements)."""
    _, source, function, spec, cases = case
    run_guarded({"source": source, "function": function, "pipeline": spec, "cases": cases})
