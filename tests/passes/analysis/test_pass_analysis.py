"""The analyses behind the AutoGPU passes: polynomials of index expressions (exact in the
wrapping arithmetic of their type), structural atoms, aliasing under C's rules, invariance."""

from __future__ import annotations

from xdsl.dialects import memref, scf
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.ir import SSAValue
from xdsl.parser import Parser

from autogpu.context import make_context
from autogpu.passes.analysis.aliasing import may_alias, memory_accesses
from autogpu.passes.analysis.loops import constant_trip_count, is_invariant
from autogpu.passes.analysis.polynomial import (
    Polynomial,
    PolynomialAnalysis,
    provably_distinct,
    provably_equal,
)

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
  %z0w = arith.extui %e0 : i32 to i64
  %z0 = arith.index_cast %z0w : i64 to index
  %z2w = arith.extui %e2 : i32 to i64
  %z2 = arith.index_cast %z2w : i64 to index
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


def parse() -> tuple[ModuleOp, dict[str | None, SSAValue]]:
    module = Parser(make_context(), IR).parse_module()
    values: dict[str | None, SSAValue] = {}
    for op in module.walk():
        for r in op.results:
            if r.name_hint:
                values[r.name_hint] = r
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    values[a.name_hint] = a
    return module, values


def test_index_polynomials():
    _, v = parse()
    pa = PolynomialAnalysis()
    e0, e1, e2 = pa.poly(v["e0"]), pa.poly(v["e1"]), pa.poly(v["e2"])
    # i + j*m == j*m + i, with j*m computed twice
    assert provably_equal(e0, e1)
    assert provably_distinct(e0, e2)
    assert not provably_distinct(e0, pa.poly(v["mm"]))
    assert not provably_equal(e0, pa.poly(v["mm"]))
    assert not provably_distinct(e0, e0)
    assert not provably_equal(e0, e2)
    # (i << 3) - 3*i == 5*i
    assert dict(pa.poly(v["e4"]).terms) == {(pa.atom_id(v["i"]),): 5}
    # i + INT_MAX + INT_MAX + 3 wraps to i + 1 (mod 2^32)
    assert pa.poly(v["w3"]).constant == 1
    # index_cast is looked through for memref indices: the polynomial is in i32
    assert provably_distinct(pa.index_poly(v["x0"]), pa.index_poly(v["x2"]))
    # an unsigned index, zero-extended: looked through too, in ui32; never compared with the
    # sign-extended one (a[u] and a[(int)u] differ for u >= 2^31)
    z0, z2 = pa.index_poly(v["z0"]), pa.index_poly(v["z2"])
    assert str(z0.type) == "ui32"
    assert provably_distinct(z0, z2)
    assert provably_equal(z0, pa.index_poly(v["z0"]))
    assert not provably_equal(z0, pa.index_poly(v["x0"]))
    assert not provably_distinct(z2, pa.index_poly(v["x0"]))
    # two separately computed j*m are one atom; equal conditions are recognised alike
    assert pa.atom_id(v["jm"]) == pa.atom_id(v["jm2"]) != pa.atom_id(v["mm"])


def test_widened_and_substituted_polynomials():
    _, v = parse()
    pa = PolynomialAnalysis()
    i, j, m = (pa.atom_id(v[name]) for name in "ijm")
    # e4 - 8 = 5*i - 8: in index, the coefficients keep their signed values
    e4 = pa.poly(v["e4"])
    wide = e4.minus(Polynomial.constant_of(e4.type, 8)).widened(IndexType())
    assert wide.type == IndexType()
    assert wide.signed((i,)) == 5
    assert wide.constant == -8
    # i + j*m with i := j + 1 and m := 3 is 4*j + 1
    e0 = pa.poly(v["e0"])
    j_plus_1 = pa.poly(v["j"]).plus(Polynomial.constant_of(e0.type, 1))
    three = Polynomial.constant_of(e0.type, 3)
    assert dict(e0.substituted({i: j_plus_1, m: three}).terms) == {(j,): 4, (): 1}


def test_aliasing_rules():
    module, v = parse()
    A, B, C, local = v["A"], v["B"], v["C"], v["l"]
    assert may_alias(A, C)  # const does not prevent aliasing
    assert not may_alias(A, B)  # B is restrict
    assert not may_alias(A, C, assume_no_alias=True)
    assert not may_alias(A, local)
    assert not may_alias(local, B)
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
