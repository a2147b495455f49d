"""The analyses behind the AutoGPU passes: linear forms of index expressions (exact in the
wrapping arithmetic of their type), structural atoms, aliasing under C's rules, invariance."""

from __future__ import annotations

from xdsl.dialects import memref, scf
from xdsl.parser import Parser

from autogpu.context import make_context
from autogpu.passes.analysis.aliasing import may_alias, memory_accesses
from autogpu.passes.analysis.linear import LinearAnalysis, provably_distinct, provably_equal
from autogpu.passes.analysis.loops import constant_trip_count, is_invariant

IR = """
func.func @f(%A: memref<?xf32> {agpu.name = "A"}, %B: memref<?xf32> {agpu.restrict},
             %C: memref<?xf32> {agpu.const}, %i: i32, %j: i32, %m: i32, %n: i32) {
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %big = arith.constant 2147483647 : i32
  %jm = arith.muli %j, %m : i32
  %e0 = arith.addi %i, %jm : i32
  %jm2 = arith.muli %j, %m : i32
  %e1 = arith.addi %jm2, %i : i32
  %e2 = arith.addi %e1, %c1 : i32
  %sh = arith.shli %i, %c3 : i32
  %e3 = arith.muli %i, %c3 : i32
  %e4 = arith.subi %sh, %e3 : i32
  %w = arith.addi %i, %big : i32
  %w2 = arith.addi %w, %big : i32
  %w3 = arith.addi %w2, %c3 : i32
  %mm = arith.muli %m, %n : i32
  %x0 = arith.index_cast %e0 : i32 to index
  %x2 = arith.index_cast %e2 : i32 to index
  %l = memref.alloca() : memref<8xf32>
  %c0 = arith.constant 0 : i32
  scf.for %k = %c0 to %n step %c1 : i32 {
    %inv = arith.addi %i, %c1 : i32
    %dep = arith.addi %k, %c1 : i32
    %v = memref.load %A[%x0] : memref<?xf32>
    memref.store %v, %B[%x2] : memref<?xf32>
  }
  func.return
}
"""


def parse():
    module = Parser(make_context(), IR).parse_module()
    values = {}
    for op in module.walk():
        for r in op.results:
            if r.name_hint:
                values[r.name_hint] = r
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    values[a.name_hint] = a
    return module, values


def test_linear_forms():
    _, v = parse()
    la = LinearAnalysis()
    e0, e1, e2 = la.form(v["e0"]), la.form(v["e1"]), la.form(v["e2"])
    # i + j*m == j*m + i, with j*m computed twice (structural atom)
    assert provably_equal(e0, e1)
    assert provably_distinct(e0, e2)
    assert not provably_distinct(e0, la.form(v["mm"]))
    assert not provably_equal(e0, la.form(v["mm"]))
    # (i << 3) - 3*i == 5*i
    assert dict(la.form(v["e4"]).terms) == {la.atom_key(v["i"]): 5}
    # i + INT_MAX + INT_MAX + 3 wraps to i + 1 (mod 2^32)
    assert la.form(v["w3"]).signed_constant == 1
    # index_cast is looked through for memref indices: the form is in i32
    assert provably_distinct(la.index_form(v["x0"]), la.index_form(v["x2"]))


def test_aliasing_rules():
    module, v = parse()
    A, B, C, local = v["A"], v["B"], v["C"], v["l"]
    assert may_alias(A, C)  # const does not prevent aliasing
    assert not may_alias(A, B)  # B is restrict
    assert not may_alias(A, C, assume_no_alias=True)
    assert not may_alias(A, local) and not may_alias(local, B)
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    accesses = memory_accesses(loop)
    assert accesses is not None
    assert [(type(a.op), a.memref.name_hint) for a in accesses] == [
        (memref.LoadOp, "A"), (memref.StoreOp, "B")]


def test_invariance_and_trip_counts():
    module, v = parse()
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    assert is_invariant(v["inv"], loop)
    assert not is_invariant(v["dep"], loop)
    assert is_invariant(v["x0"], loop)
    assert constant_trip_count(loop) is None
