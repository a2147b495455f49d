"""What a kernel knows about its threads.

A value is *block-uniform* when every thread of a block that computes it gets the same value:
kernel arguments, block and grid indices and sizes, constants, device globals, pure functions
of uniform values, and the induction variable of a loop whose start and step are uniform.
`threadIdx` along a dimension of the block of size 1 is 0, hence uniform too. Loads are never
taken as uniform (another thread may have written in between). An `scf.if` whose condition is
not uniform is a *guard* (some threads of the block skip it), an `scf.for` with uniform bounds a
*uniform loop* (all threads run the same iterations): barriers are only correct under uniform
control flow.
"""

from __future__ import annotations

from xdsl.dialects import arith, gpu, memref, scf
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerType, StringAttr
from xdsl.dialects.gpu import DimensionEnum
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.traits import is_side_effect_free
from xdsl.utils.hints import isa

from autogpu.dialects.signature import NAME, RESTRICT
from autogpu.passes.analysis.integers import bit_width, constant_int
from autogpu.passes.analysis.polynomial import Polynomial, PolynomialAnalysis

DIMS = (DimensionEnum.X, DimensionEnum.Y, DimensionEnum.Z)
GPU_ID_OPS = (gpu.ThreadIdOp, gpu.BlockIdOp, gpu.BlockDimOp, gpu.GridDimOp)

_ALWAYS_SPECULATABLE = (
    arith.ConstantOp,
    arith.AddiOp,
    arith.SubiOp,
    arith.MuliOp,
    arith.AndIOp,
    arith.OrIOp,
    arith.XOrIOp,
    arith.IndexCastOp,
    arith.ExtSIOp,
    arith.ExtUIOp,
    arith.TruncIOp,
    arith.CmpiOp,
    arith.SelectOp,
    arith.MinSIOp,
    arith.MaxSIOp,
    arith.MinUIOp,
    arith.MaxUIOp,
    arith.AddfOp,
    arith.SubfOp,
    arith.MulfOp,
    arith.DivfOp,
    arith.NegfOp,
    arith.CmpfOp,
    arith.SIToFPOp,
    arith.UIToFPOp,
    arith.ExtFOp,
    arith.TruncFOp,
    arith.MaxnumfOp,
    arith.MinnumfOp,
    arith.MaximumfOp,
    arith.MinimumfOp,
    memref.GetGlobalOp,
    *GPU_ID_OPS,
)
_SHIFTS = (arith.ShLIOp, arith.ShRSIOp, arith.ShRUIOp)
_DIVISIONS = (
    arith.DivSIOp,
    arith.DivUIOp,
    arith.RemSIOp,
    arith.RemUIOp,
    arith.CeilDivSIOp,
    arith.CeilDivUIOp,
    arith.FloorDivSIOp,
)


def has_no_memory_effects(op: Operation) -> bool:
    """Side-effect free as xDSL says, or an `arith`/`math` op (xDSL 0.74 leaves a few, such as
    `arith.remui`, without the trait)."""
    if op.regions:
        return is_side_effect_free(op)
    return is_side_effect_free(op) or op.name.split(".")[0] in ("arith", "math")


def is_speculatable(op: Operation) -> bool:
    """`op` may run where the program would not have run it: no effects, cannot trap or be
    undefined (divisions only by constants other than 0 and -1, shifts only by constants less
    than the width)."""
    if op.regions:
        return False
    if isinstance(op, _ALWAYS_SPECULATABLE):
        return True
    if isinstance(op, _SHIFTS):
        amount, width = constant_int(op.operands[1]), bit_width(op.operands[1].type)
        return amount is not None and width is not None and 0 <= amount < width
    if isinstance(op, _DIVISIONS):
        divisor = constant_int(op.operands[1])
        return divisor is not None and divisor not in (0, -1)
    return False


def dim_of(op: Operation) -> DimensionEnum:
    assert isinstance(op, GPU_ID_OPS)
    return op.dimension.data


def _gpu_key(value: SSAValue):
    """`gpu.thread_id x` etc. have no traits, but are the same wherever computed."""
    owner = value.owner
    if isinstance(owner, GPU_ID_OPS):
        return (owner.name, dim_of(owner))
    return None


class KernelFacts:
    """Threads, uniformity and polynomial index forms of one `gpu.func` kernel."""

    def __init__(self, kernel: gpu.FuncOp):
        self.kernel = kernel
        size = kernel.known_block_size
        assert size is not None
        self.block = tuple(size.get_values())
        self.entry = kernel.body.block
        self.polys = PolynomialAnalysis(self._leaf, _gpu_key)
        self._uniform: dict[SSAValue, bool] = {}

    # -- threads -------------------------------------------------------------------------------

    def block_size(self, dim: DimensionEnum) -> int:
        return self.block[DIMS.index(dim)]

    @property
    def threads(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    def thread_dim(self, value: SSAValue) -> DimensionEnum | None:
        """The dimension of a `threadIdx` value that varies in the block (size > 1)."""
        owner = value.owner
        if isinstance(owner, gpu.ThreadIdOp) and self.block_size(dim_of(owner)) > 1:
            return dim_of(owner)
        return None

    def _leaf(self, value: SSAValue) -> Polynomial | None:
        owner = value.owner
        if isinstance(owner, gpu.ThreadIdOp) and self.block_size(dim_of(owner)) == 1:
            return Polynomial.constant_of(value.type, 0)
        if isinstance(owner, gpu.BlockDimOp):
            return Polynomial.constant_of(value.type, self.block_size(dim_of(owner)))
        return None

    # -- uniformity ----------------------------------------------------------------------------

    def is_uniform(self, value: SSAValue) -> bool:
        if (known := self._uniform.get(value)) is not None:
            return known
        self._uniform[value] = False  # (no cycles in SSA outside loops; loops handled below)
        result = self._compute_uniform(value)
        self._uniform[value] = result
        return result

    def _compute_uniform(self, value: SSAValue) -> bool:
        if isinstance(value, BlockArgument):
            block = value.block
            if block is self.entry:
                return True
            loop = block.parent_op()
            if isinstance(loop, scf.ForOp) and value.index == 0:
                return self.is_uniform(loop.lb) and self.is_uniform(loop.step)
            return False
        owner = value.owner
        assert isinstance(owner, Operation)
        if isinstance(owner, gpu.ThreadIdOp):
            return self.block_size(dim_of(owner)) == 1
        if isinstance(owner, (gpu.BlockIdOp, gpu.BlockDimOp, gpu.GridDimOp)):
            return True
        if isinstance(owner, (arith.ConstantOp, memref.GetGlobalOp)):
            return True
        if owner.regions or not has_no_memory_effects(owner):
            return False
        if all(self.is_uniform(operand) for operand in owner.operands):
            return True
        if bit_width(value.type) is None:
            return False
        # e.g. `(gid_x - threadIdx.x)`: syntactically thread-dependent, but not in value
        poly = self.polys.poly(value)
        if self.polys.atom_id(value) in poly.atom_ids():
            return False
        return all(self.is_uniform(poly.atoms[a]) for a in poly.atom_ids())

    def is_uniform_loop(self, loop: scf.ForOp) -> bool:
        """All threads run the same iterations (no loop-carried values)."""
        return not loop.iter_args and all(
            self.is_uniform(v) for v in (loop.lb, loop.ub, loop.step)
        )

    def is_guard(self, op: Operation) -> bool:
        return isinstance(op, scf.IfOp) and not self.is_uniform(op.cond)

    # -- arrays ----------------------------------------------------------------------------

    def array_name(self, value: SSAValue) -> str:
        """The C name of a kernel argument (its `agpu.name`), else its SSA name."""
        return argument_name(self.kernel, value)

    def is_restrict(self, value: SSAValue) -> bool:
        return RESTRICT in _argument_attrs(self.kernel, value)

    def is_argument(self, value: SSAValue) -> bool:
        return isinstance(value, BlockArgument) and value.block is self.entry


def _argument_attrs(kernel: gpu.FuncOp, value: SSAValue) -> dict[str, object]:
    if not (isinstance(value, BlockArgument) and value.block is kernel.body.blocks.first):
        return {}
    attrs = kernel.attributes.get("arg_attrs")
    if isa(attrs, ArrayAttr) and value.index < len(attrs.data):
        entry = attrs.data[value.index]
        if isinstance(entry, DictionaryAttr):
            return dict(entry.data)
    return {}


def argument_name(kernel: gpu.FuncOp, value: SSAValue) -> str:
    """The C name of a kernel argument (its `agpu.name`), else its SSA name."""
    name = _argument_attrs(kernel, value).get(NAME)
    if isinstance(name, StringAttr):
        return name.data
    return value.name_hint or "array"


def loop_name(loop: scf.ForOp) -> str:
    """How remarks name a loop: by its induction variable."""
    iv = loop.body.block.args[0]
    uses = [u.operation for u in iv.uses]
    hint = iv.name_hint
    for user in uses:  # the lowering's `k_idx` is cast to the C variable `k`
        if isinstance(user, arith.IndexCastOp) and user.result.name_hint:
            if isinstance(user.result.type, IntegerType):
                hint = user.result.name_hint
    return f"'{hint}'" if hint else "an unnamed loop"


def ancestors(op: Operation, stop: Operation) -> list[Operation]:
    """The ops enclosing `op` up to (excluding) `stop`, innermost first."""
    result: list[Operation] = []
    parent = op.parent_op()
    while parent is not None and parent is not stop:
        result.append(parent)
        parent = parent.parent_op()
    return result


def enclosing_block_in(op: Operation, block: Block) -> Operation | None:
    """The ancestor of `op` (or `op` itself) that lies directly in `block`."""
    current: Operation | None = op
    while current is not None and current.parent_block() is not block:
        current = current.parent_op()
    return current
