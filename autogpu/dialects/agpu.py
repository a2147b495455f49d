"""The `agpu` loop dialect: the AutoGPU level of a kernel.

A serial C kernel becomes `func.func` + `scf` + `arith` + `math` + `memref`; the only thing those
dialects cannot say is *which loops may run in parallel and how they should be mapped to the GPU*.
That is this dialect: `agpu.parallel_for` is the paper's ParFor, carrying its iteration space,
its indexing scheme (dense or sparse), its unroll factor, an optional GPU dimension and the
OpenMP reductions over it. Everything else is reused from xDSL (see docs/ir.md for conventions).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import auto
from typing import ClassVar

from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    Signedness,
    SignlessIntegerConstraint,
    StringAttr,
    i64,
)
from xdsl.dialects.gpu import DimensionAttr, DimensionEnum
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    Operation,
    Region,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
)
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    VarConstraint,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsTerminator,
    Pure,
    RecursiveMemoryEffect,
    SingleBlockImplicitTerminator,
    ensure_terminator,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.hints import isa
from xdsl.utils.str_enum import StrEnum


class ReductionKind(StrEnum):
    """The OpenMP `reduction(op: ...)` operators. `sub` combines like `add` (OpenMP 4.5+).

    IR integers are signless, so the kind carries the signedness of an integer min/max: `min`
    and `max` compare signed (and are the only min/max of floats), `umin` and `umax` unsigned
    (the frontend picks them for an `unsigned` variable, or an update that compares unsigned).
    `land`/`lor` are C's `&&`/`||`: the result is 0 or 1 in the variable's type."""

    ADD = auto()
    SUB = auto()
    MUL = auto()
    MIN = auto()
    MAX = auto()
    UMIN = auto()
    UMAX = auto()
    AND = auto()
    OR = auto()
    XOR = auto()
    LAND = auto()
    LOR = auto()

    @property
    def is_bitwise(self) -> bool:
        return self in (ReductionKind.AND, ReductionKind.OR, ReductionKind.XOR)

    @property
    def is_logical(self) -> bool:
        return self in (ReductionKind.LAND, ReductionKind.LOR)

    @property
    def needs_integer(self) -> bool:
        """Bitwise operators and unsigned comparisons have no floating-point meaning."""
        return self.is_bitwise or self in (ReductionKind.UMIN, ReductionKind.UMAX)

    @property
    def unsigned(self) -> ReductionKind:
        """The unsigned comparison of a min/max kind (any other kind unchanged)."""
        return {ReductionKind.MIN: ReductionKind.UMIN,
                ReductionKind.MAX: ReductionKind.UMAX}.get(self, self)  # fmt: skip


REDUCTION_OF_C_OPERATOR: dict[str, ReductionKind] = {
    "+": ReductionKind.ADD,
    "-": ReductionKind.SUB,
    "*": ReductionKind.MUL,
    "min": ReductionKind.MIN,
    "max": ReductionKind.MAX,
    "&": ReductionKind.AND,
    "|": ReductionKind.OR,
    "^": ReductionKind.XOR,
    "&&": ReductionKind.LAND,
    "||": ReductionKind.LOR,
}

# A unit attribute on the `memref.store` of a `lastprivate` copy-out inside an
# `agpu.parallel_for`: only the sequentially last iteration runs it, so the variable it writes is
# shared (written once), not private to each thread (docs/ir.md).
LAST_ITERATION = "agpu.last_iteration"


class Indexing(StrEnum):
    """How threads enumerate a strided loop (AutoGPU 2.3.1).

    sparse: thread t takes i = lb + t and threads off the stride idle;
    dense: thread t takes i = lb + t * step, so no thread idles.
    """

    SPARSE = auto()
    DENSE = auto()


@irdl_attr_definition
class ReductionKindAttr(EnumAttribute[ReductionKind], SpacedOpaqueSyntaxAttribute):
    name = "agpu.reduction"


@irdl_attr_definition
class IndexingAttr(EnumAttribute[Indexing], SpacedOpaqueSyntaxAttribute):
    name = "agpu.indexing"


def _constant_int(value: SSAValue) -> int | None:
    """The integer a value is known to hold, if it comes straight from `arith.constant`."""
    owner = value.owner
    if isinstance(owner, ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Terminates the body of an `agpu.parallel_for` (implicit in the custom syntax)."""

    name = "agpu.yield"

    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(ParallelForOp), Pure()))

    def __init__(self):
        super().__init__()


DISTRIBUTIONS = ("cyclic", "blocked")
"""The ways a thread's replicas spread over a parallel loop (`ParallelForOp.distribution`)."""


@irdl_op_definition
class ParallelForOp(IRDLOperation):
    """A loop whose iterations are independent (`#pragma omp parallel for`).

    Iterates `%i = lb, lb + step, ... < ub` (step > 0). Reductions name the scalar (rank-0) or
    array (rank-1) memory that the iterations combine into with the given operator; each is
    private to an iteration and combined at the end, as OpenMP specifies. An array reduction
    reduces the section `[lo : len]` of its array (OpenMP's `h[lo:len]`, `index` values): the
    `section_bounds` hold `lo, len` for each rank-1 reduction variable, in order.
    """

    name = "agpu.parallel_for"

    T: ClassVar = VarConstraint("T", base(IndexType) | SignlessIntegerConstraint)

    lb = operand_def(T)
    ub = operand_def(T)
    step = operand_def(T)
    reduction_vars = var_operand_def(MemRefType)
    section_bounds = var_operand_def(IndexType)

    reductions = prop_def(ArrayAttr[ReductionKindAttr], default_value=ArrayAttr(()))
    indexing = prop_def(IndexingAttr, default_value=IndexingAttr(Indexing.SPARSE))
    unroll = prop_def(IntegerAttr, default_value=IntegerAttr(1, i64))
    mapping = opt_prop_def(DimensionAttr)
    distribution = opt_prop_def(StringAttr)
    """How a thread's `unroll` replicas spread over the iterations: absent or "cyclic" (replica
    r of thread t runs t + r * threads, the paper's), or "blocked" (t * unroll + r: a thread's
    replicas are neighbours, so its reads of a tile are contiguous and can be vector loads)."""

    body = region_def("single_block")

    traits = traits_def(SingleBlockImplicitTerminator(YieldOp), RecursiveMemoryEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        lb: SSAValue | Operation,
        ub: SSAValue | Operation,
        step: SSAValue | Operation,
        body: Region | Block | Sequence[Operation],
        reductions: Sequence[tuple[ReductionKind, SSAValue | Operation]] = (),
        sections: Sequence[tuple[SSAValue, SSAValue]] = (),
        *,
        indexing: Indexing = Indexing.SPARSE,
        unroll: int = 1,
        mapping: DimensionEnum | None = None,
        distribution: str | None = None,
    ):
        if isinstance(body, Block):
            body = Region(body)
        elif not isinstance(body, Region):
            body = Region(Block(body))
        super().__init__(
            operands=[lb, ub, step, [var for _, var in reductions],
                      [bound for section in sections for bound in section]],
            regions=[body],
            properties={
                "reductions": ArrayAttr(ReductionKindAttr(kind) for kind, _ in reductions),
                "indexing": IndexingAttr(indexing),
                "unroll": IntegerAttr(unroll, i64),
                **({"mapping": DimensionAttr(mapping)} if mapping is not None else {}),
                **({"distribution": StringAttr(distribution)}
                   if distribution is not None else {}),
            },
        )

    @property
    def induction_var(self):
        return self.body.block.args[0]

    @property
    def blocked(self) -> bool:
        """A thread's replicas are consecutive iterations (`distribution blocked`)."""
        return self.distribution is not None and self.distribution.data == "blocked"

    @property
    def reduction_list(self) -> list[tuple[ReductionKind, SSAValue]]:
        return [(k.data, v) for k, v in zip(self.reductions.data, self.reduction_vars)]

    def section_of(self, var: SSAValue) -> tuple[SSAValue, SSAValue] | None:
        """`(lo, len)` of an array reduction variable (None for a scalar one)."""
        bounds = iter(self.section_bounds)
        for candidate in self.reduction_vars:
            assert isa(candidate.type, MemRefType)
            section = (next(bounds), next(bounds)) if candidate.type.get_shape() else None
            if candidate is var:
                return section
        raise ValueError(f"{var} is no reduction variable of this loop")

    def verify_(self) -> None:
        block = self.body.block
        if len(block.args) != 1:
            raise VerifyException(
                "agpu.parallel_for body must have exactly one argument, the induction variable"
            )
        if block.args[0].type != self.lb.type:
            raise VerifyException(
                "agpu.parallel_for induction variable must have the type of its bounds "
                f"({self.lb.type}), got {block.args[0].type}"
            )
        if (step := _constant_int(self.step)) is not None and step <= 0:
            raise VerifyException(
                f"agpu.parallel_for step must be positive, got {step}; "
                "a decreasing loop is normalised to an increasing one by the frontend"
            )
        if self.unroll.value.data < 1:
            raise VerifyException(
                f"agpu.parallel_for unroll factor must be at least 1, got {self.unroll.value.data}"
            )
        if self.distribution is not None and self.distribution.data not in DISTRIBUTIONS:
            raise VerifyException(
                f"agpu.parallel_for distribution must be one of {', '.join(DISTRIBUTIONS)}, "
                f"got '{self.distribution.data}'"
            )
        if len(self.reductions.data) != len(self.reduction_vars):
            raise VerifyException(
                f"agpu.parallel_for has {len(self.reduction_vars)} reduction variables but "
                f"{len(self.reductions.data)} reduction operators"
            )
        for kind, var in self.reduction_list:
            _verify_reduction(kind, var)
        arrays = sum(
            1 for _, var in self.reduction_list
            if isa(var.type, MemRefType) and var.type.get_shape()
        )
        if len(self.section_bounds) != 2 * arrays:
            raise VerifyException(
                f"agpu.parallel_for has {arrays} array reductions but {len(self.section_bounds)} "
                "section bounds (each array reduction has a section [lo : len])"
            )

    def print(self, printer: Printer) -> None:
        _print_parallel_for(self, printer)

    @classmethod
    def parse(cls, parser: Parser) -> ParallelForOp:
        return _parse_parallel_for(parser)


def _verify_reduction(kind: ReductionKind, var: SSAValue) -> None:
    assert isa(var.type, MemRefType)
    rank = len(var.type.get_shape())
    if rank > 1:
        raise VerifyException(
            f"agpu.parallel_for reduction variable must be a scalar (rank 0) or an array "
            f"(rank 1) memref, got rank {rank}"
        )
    element = var.type.element_type
    if isa(element, IntegerType) and element.signedness.data == Signedness.SIGNLESS:
        return
    if not isinstance(element, AnyFloat):
        raise VerifyException(
            f"agpu.parallel_for reduction variable must hold a signless integer or a float, "
            f"got {element}"
        )
    if kind.needs_integer:
        raise VerifyException(
            f"agpu.parallel_for reduction '{kind.value}' needs an integer variable, got {element}"
        )


# ---------------------------------------------------------------------------------------------
# Custom syntax:
#   agpu.parallel_for %i = %lb to %ub step %s [: type] [indexing dense] [unroll 2] [mapping x]
#       [reduction(add %sum : memref<f32>, ...)] { body } [attr-dict]
# Only properties that differ from their defaults are printed, so plain loops read like C.
# ---------------------------------------------------------------------------------------------


def _print_parallel_for(op: ParallelForOp, printer: Printer) -> None:
    printer.print_string(" ")
    printer.print_ssa_value(op.induction_var)
    printer.print_string(" = ")
    printer.print_ssa_value(op.lb)
    printer.print_string(" to ")
    printer.print_ssa_value(op.ub)
    printer.print_string(" step ")
    printer.print_ssa_value(op.step)
    if not isinstance(op.lb.type, IndexType):
        printer.print_string(" : ")
        printer.print_attribute(op.lb.type)
    if op.indexing.data != Indexing.SPARSE:
        printer.print_string(f" indexing {op.indexing.data.value}")
    if op.unroll.value.data != 1:
        printer.print_string(f" unroll {op.unroll.value.data}")
    if op.mapping is not None:
        printer.print_string(f" mapping {op.mapping.data.value}")
    if op.distribution is not None and op.distribution.data != "cyclic":
        printer.print_string(f" distribution {op.distribution.data}")
    if op.reduction_vars:
        printer.print_string(" reduction(")

        def print_one(pair: tuple[ReductionKind, SSAValue]) -> None:
            printer.print_string(f"{pair[0].value} ")
            printer.print_ssa_value(pair[1])
            if (section := op.section_of(pair[1])) is not None:
                printer.print_string("[")
                printer.print_ssa_value(section[0])
                printer.print_string(" : ")
                printer.print_ssa_value(section[1])
                printer.print_string("]")
            printer.print_string(" : ")
            printer.print_attribute(pair[1].type)

        printer.print_list(op.reduction_list, print_one)
        printer.print_string(")")
    printer.print_string(" ")
    printer.print_region(op.body, print_entry_block_args=False, print_block_terminators=False)
    printer.print_op_attributes(op.attributes)


def _parse_parallel_for(parser: Parser) -> ParallelForOp:
    indvar = parser.parse_argument(expect_type=False)
    parser.parse_punctuation("=")
    bounds = [parser.parse_unresolved_operand()]
    parser.parse_keyword("to")
    bounds.append(parser.parse_unresolved_operand())
    parser.parse_keyword("step")
    bounds.append(parser.parse_unresolved_operand())
    bound_type: Attribute = (
        parser.parse_type() if parser.parse_optional_punctuation(":") else IndexType()
    )
    lb, ub, step = (parser.resolve_operand(b, bound_type) for b in bounds)

    indexing = Indexing.SPARSE
    unroll = 1
    mapping: DimensionEnum | None = None
    distribution: str | None = None
    reductions: list[tuple[ReductionKind, SSAValue]] = []
    sections: list[tuple[SSAValue, SSAValue]] = []
    while True:
        if parser.parse_optional_keyword("indexing"):
            indexing = parser.parse_str_enum(Indexing)
        elif parser.parse_optional_keyword("unroll"):
            unroll = parser.parse_integer(allow_boolean=False, allow_negative=True)
        elif parser.parse_optional_keyword("mapping"):
            mapping = parser.parse_str_enum(DimensionEnum)
        elif parser.parse_optional_keyword("distribution"):
            distribution = parser.parse_identifier()
        elif parser.parse_optional_keyword("reduction"):

            def parse_one() -> tuple[ReductionKind, SSAValue]:
                kind = parser.parse_str_enum(ReductionKind)
                operand = parser.parse_unresolved_operand()
                if parser.parse_optional_punctuation("["):
                    lo = parser.resolve_operand(parser.parse_unresolved_operand(), IndexType())
                    parser.parse_punctuation(":")
                    length = parser.resolve_operand(parser.parse_unresolved_operand(), IndexType())
                    parser.parse_punctuation("]")
                    sections.append((lo, length))
                parser.parse_punctuation(":")
                return kind, parser.resolve_operand(operand, parser.parse_type())

            reductions += parser.parse_comma_separated_list(parser.Delimiter.PAREN, parse_one)
        else:
            break

    body = parser.parse_region((indvar.resolve(bound_type),))
    op = ParallelForOp(
        lb, ub, step, body, reductions, sections, indexing=indexing, unroll=unroll,
        mapping=mapping, distribution=distribution,
    )
    op.attributes |= parser.parse_optional_attr_dict()
    for trait in op.get_traits_of_type(SingleBlockImplicitTerminator):
        ensure_terminator(op, trait)
    return op


from autogpu.dialects.agpu_combine import COMBINE_OPS  # noqa: E402 (its ops are in the dialect below)
from autogpu.dialects.agpu_math import MATH_OPS  # noqa: E402 (its ops are in the dialect below)
from autogpu.dialects.agpu_sync import SYNC_OPS  # noqa: E402 (its ops are in the dialect below)
from autogpu.dialects.agpu_vector import VECTOR_OPS  # noqa: E402 (its ops are in the dialect below)

AGPU = Dialect(
    "agpu",
    [ParallelForOp, YieldOp, *SYNC_OPS, *COMBINE_OPS, *MATH_OPS, *VECTOR_OPS],
    [ReductionKindAttr, IndexingAttr],
)
