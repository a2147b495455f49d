"""`gpu-vectorize`: neighbouring scalar accesses of an array as one vector access.

A register tile reads, per step of its serial loop, the thread's fragment of each operand from
shared memory: with a blocked distribution and the tile laid out for its readers
(`agpu-unroll-parallel{distribution=blocked}`, `gpu-cache-shared`) that is `tile[f + 0]` ...
`tile[f + 7]`, eight scalar loads (LDS.32). This pass makes them `agpu.vector_load`s of
`width` elements (two LDS.128), and the cooperative copy's `tile[s + q] = ...` for
q < width one `agpu.vector_store`:

    %a = memref.load %t[%i]; %b = memref.load %t[%i + 1]; ...   (same block, same array)
      ==>
    %a, %b, %c, %d = agpu.vector_load %t[%i]

Legality: the accesses of a group lie in one block with no write of the array (nor a barrier,
a call, an op with unknown effects) between the first and the last, so reading (or writing)
them together at the first (last) one changes nothing. Alignment is proven, not assumed: the
index's polynomial (`analysis/polynomial.py`) minus its constant must have every coefficient a
multiple of `width` (else of a narrower width: the rows of a padded tile), the constant a
multiple of it, and the array is declared `__align__(width * bytes)` (`agpu.align` on its
`memref.alloca`). Loads of global memory are grouped the same way, but their alignment
depends on the caller's pointer: their `agpu.vector_load` is `checked` (the address tested at
run time, a misaligned one read element by element). Stores to global memory stay scalar.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from xdsl.context import Context
from xdsl.dialects import arith, gpu, memref
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp, i64
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free
from xdsl.utils.hints import isa

from autogpu.dialects.agpu_vector import ALIGN_ATTR, VectorLoadOp, VectorStoreOp, vector_type
from autogpu.passes.analysis.polynomial import PolynomialAnalysis
from autogpu.passes.convert_agpu_to_gpu.reductions import SHARED_MEMORY_SPACE
from autogpu.passes.gpu_cache_shared.footprint import element_bytes
from autogpu.passes.options import DeclaredOptionsPass, one_of_ints, option

Access = memref.LoadOp | memref.StoreOp


def shared_alloca(array: SSAValue) -> memref.AllocaOp | None:
    """The alloca of a one-dimensional `__shared__` array (a tile), or None."""
    owner = array.owner
    if not isinstance(owner, memref.AllocaOp):
        return None
    type = owner.memref.type
    assert isinstance(type, MemRefType)
    if type.memory_space != SHARED_MEMORY_SPACE or len(type.get_shape()) != 1:
        return None
    return owner


def _global_array(op: memref.LoadOp | memref.StoreOp) -> bool:
    """A load of a rank-1 array parameter of the kernel (global memory)."""
    type = op.memref.type
    return (isinstance(op, memref.LoadOp) and isinstance(op.memref, BlockArgument)
            and isinstance(op.memref.owner.parent_op(), gpu.FuncOp)
            and isinstance(type, MemRefType) and len(type.get_shape()) == 1)


def _separates(op: Operation, array: SSAValue) -> bool:
    """Whether `op` may write `array` or synchronise: no access moves across it."""
    if isinstance(op, memref.LoadOp | VectorLoadOp):
        return False
    if isinstance(op, memref.StoreOp | VectorStoreOp):
        return op.memref is array
    return not (is_side_effect_free(op) and not op.regions)


@dataclass
class _Candidate:
    access: Access
    position: int  # in the block
    offset: int  # the constant of its index


class _BlockVectorizer:
    """Groups the accesses of one block and rewrites the vectorizable ones."""

    def __init__(self, polys: PolynomialAnalysis, width: int, global_loads: bool):
        self.polys = polys
        self.width = width
        self.global_loads = global_loads
        self.aligned: dict[memref.AllocaOp, int] = {}

    def run(self, block: Block) -> None:
        ops = list(block.ops)
        # (array, load or store, non-constant part of the index, width) -> accesses, in order
        groups: dict[tuple[SSAValue, bool, object, int], list[_Candidate]] = defaultdict(list)
        for position, op in enumerate(ops):
            if not isinstance(op, memref.LoadOp | memref.StoreOp):
                continue
            shared = shared_alloca(op.memref) is not None
            if not (shared or (self.global_loads and _global_array(op))):
                continue
            if (width := self._width(op.memref)) is None:
                continue
            poly = self.polys.index_poly(op.indices[0])
            constant = poly.constant
            variable = poly.minus(type(poly).constant_of(poly.type, constant))
            while shared and width >= 2 and any(poly.signed(m) % width for m in variable.terms):
                width //= 2  # a multiple of a narrower vector, perhaps (padded rows)
            if width < 2:
                continue  # not provably a multiple of any width
            key = (op.memref, isinstance(op, memref.LoadOp), variable.key, width)
            groups[key].append(_Candidate(op, position, constant))
        for (array, is_load, _, width), members in groups.items():
            for run in self._runs(ops, array, is_load, members):
                self._vectorize(array, is_load, run, width)

    @staticmethod
    def _runs(ops: list[Operation], array: SSAValue, is_load: bool,
              members: list[_Candidate]) -> list[list[_Candidate]]:
        """The members split where something between two of them forbids moving one past
        the other: a write of the array (loads), any other access of it (stores)."""
        own = {id(m.access) for m in members}
        runs: list[list[_Candidate]] = [[members[0]]]
        for previous, member in pairwise(members):
            between = ops[previous.position + 1:member.position]
            if is_load:
                blocked = any(_separates(op, array) for op in between)
            else:
                blocked = any(
                    id(op) not in own and (
                        _separates(op, array)
                        or (isinstance(op, memref.LoadOp | VectorLoadOp) and op.memref is array))
                    for op in between)
            if blocked:
                runs.append([member])
            else:
                runs[-1].append(member)
        return runs

    def _width(self, array: SSAValue) -> int | None:
        type = array.type
        assert isa(type, MemRefType)
        width = min(self.width, 16 // element_bytes(array))
        return width if width >= 2 and vector_type(type.element_type, width) else None

    def _vectorize(self, array: SSAValue, is_load: bool, members: Sequence[_Candidate],
                   width: int) -> None:
        by_offset: dict[int, _Candidate] = {}
        for member in members:
            by_offset.setdefault(member.offset, member)
        if not is_load and len(by_offset) != len(members):
            return  # an element stored twice: moving one store past the other changes it
        shared = shared_alloca(array) is not None
        done = False
        taken: set[int] = set()
        for start in sorted(by_offset):
            if shared and start % width:
                continue  # proven alignment: at multiples of the width only
            wanted = [start + q for q in range(width)]
            if any(o not in by_offset or o in taken for o in wanted):
                continue
            taken.update(wanted)
            lanes = [by_offset[o] for o in wanted]
            if is_load:
                self._load(array, lanes, width, checked=not shared)
            else:
                if len({id(c.access) for c in lanes}) != width:
                    continue
                self._store(array, lanes)
            done = True
        if done and shared:
            alloca = shared_alloca(array)
            assert alloca is not None
            bytes = width * element_bytes(array)
            if self.aligned.get(alloca, 0) < bytes:
                self.aligned[alloca] = bytes
                alloca.attributes[ALIGN_ATTR] = IntegerAttr(bytes, i64)

    @staticmethod
    def _index_at(first: _Candidate, start: int, point: Operation) -> SSAValue:
        """The index of element `start` of the group, computed before `point` from the index
        of `first` (which is defined there)."""
        index = first.access.indices[0]
        if first.offset == start:
            return index
        shift = arith.ConstantOp(IntegerAttr(start - first.offset, IndexType()))
        add = arith.AddiOp(index, shift.result)
        Rewriter.insert_op([shift, add], InsertPoint.before(point))
        return add.result

    def _load(self, array: SSAValue, lanes: list[_Candidate], width: int,
              checked: bool) -> None:
        first = min(lanes, key=lambda c: c.position)
        point = first.access
        index = self._index_at(first, lanes[0].offset, point)
        vector = VectorLoadOp(array, index, width, checked)
        Rewriter.insert_op(vector, InsertPoint.before(point))
        for lane, value in zip(lanes, vector.values):
            load = lane.access
            assert isinstance(load, memref.LoadOp)
            value.name_hint = load.res.name_hint
            load.res.replace_all_uses_with(value)
            load.detach()
            load.erase()

    def _store(self, array: SSAValue, lanes: list[_Candidate]) -> None:
        last = max(lanes, key=lambda c: c.position)
        first = min(lanes, key=lambda c: c.position)
        point = last.access
        index = self._index_at(first, lanes[0].offset, point)
        values: list[SSAValue] = []
        for lane in lanes:
            store = lane.access
            assert isinstance(store, memref.StoreOp)
            values.append(store.value)
        Rewriter.insert_op(VectorStoreOp(values, array, index), InsertPoint.after(point))
        for lane in lanes:
            lane.access.detach()
            lane.access.erase()


@dataclass(frozen=True)
class GpuVectorizePass(DeclaredOptionsPass):
    """Neighbouring loads (stores) of a `__shared__` array as vector accesses."""

    name = "gpu-vectorize"

    width: int = option(
        4, doc="Elements per vector access: 4 (float4, int4; double2 for 8-byte elements), 2 "
        "(float2, double2, int2), or 0: none.", check=one_of_ints(0, 2, 4))

    global_loads: bool = option(
        False, doc="Also read neighbouring elements of a kernel's array parameters as one "
        "vector, its alignment tested at run time (a misaligned address reads element by "
        "element): the whole-tile copies' LDG.128. Off by default: the test per access cost "
        "up to 7 % at general sizes on the H100, and gained nothing with sizes compiled in.")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.width == 0:
            return
        for kernel in op.walk():
            if not isinstance(kernel, gpu.FuncOp):
                continue
            vectorizer = _BlockVectorizer(PolynomialAnalysis(), self.width, self.global_loads)
            blocks = [block for inner in kernel.walk() for region in inner.regions
                      for block in region.blocks]
            for block in blocks:
                vectorizer.run(block)
