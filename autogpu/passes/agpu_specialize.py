"""`agpu-specialize`: compile a function for given values of its integer size parameters.

    agpu-specialize{sizes="m=2048,n=2048"}

replaces every use of the scalar parameters `m` and `n` (by C name) inside each function that
has them with the constants, then canonicalizes (`fold=true`), so constant trip counts, bounds
tests and launch sizes fold: serial loops over `t = 5` can be unrolled completely
(`agpu-unroll-serial`), and the lowering leaves out the bounds guards the grid makes
unnecessary (`convert-agpu-to-gpu`, see `convert_agpu_to_gpu/coverage.py`).

The signature stays the same, so callers and the launch description keep passing `m`; the
kernels are only correct for `m = 2048`. The function records it as the attribute
`agpu.requires = {m = 2048 : i64}`, which the launch description carries as
`"requires": {"m": 2048}` and the executors check before running (`autogpu.target.requirements`).

Values must fit the parameter's C type; names that are no integer scalar parameter of any
function, arrays, floating-point parameters and malformed lists are errors. A parameter already
specialised to another value is an error too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    i64,
)
from xdsl.ir import BlockArgument
from xdsl.utils.hints import isa

from autogpu.dialects.signature import CTYPE, REQUIRES, resolve, string, value_attributes
from autogpu.passes.analysis.aliasing import c_name
from autogpu.passes.analysis.integers import bit_width, to_signed
from autogpu.passes.canonicalize import HoistingCanonicalizePass
from autogpu.passes.options import DeclaredOptionsPass, option
from autogpu.passes.utils.errors import PassError, error_at
from autogpu.target.c_types import int_range
from autogpu.target.requirements import requirements_of

_ENTRY = re.compile(r"^([A-Za-z_]\w*)=([+-]?\d+)$")
_INT64 = (-(2**63), 2**63 - 1)


def parse_sizes(text: str) -> dict[str, int]:
    """`"m=2048,n=2048"` (commas or spaces between entries) as {"m": 2048, "n": 2048}."""
    sizes: dict[str, int] = {}
    for entry in re.split(r"[,\s]+", text.strip()):
        if not entry:
            continue
        match = _ENTRY.match(entry)
        if match is None:
            raise PassError(
                f"agpu-specialize: invalid size '{entry}': expected NAME=INTEGER, as in "
                'sizes="m=2048,n=2048"'
            )
        name, value = match[1], int(match[2])
        if name in sizes:
            raise PassError(f"agpu-specialize: '{name}' is given twice")
        sizes[name] = value
    return sizes


def _ctype(arg: BlockArgument) -> str:
    return resolve(string(value_attributes(arg), CTYPE), arg.type).name


def _specialize(fn: func.FuncOp, arg: BlockArgument, name: str, value: int) -> None:
    where = f"parameter '{name}' of function '{fn.sym_name.data}'"
    if isinstance(arg.type, MemRefType):
        raise error_at(fn, f"agpu-specialize: {where} is an array, not a size")
    if not isa(arg.type, IntegerType | IndexType) or bit_width(arg.type) == 1:
        raise error_at(
            fn, f"agpu-specialize: {where} has type {arg.type}: only integers can be specialised"
        )
    low, high = int_range(_ctype(arg)) if isinstance(arg.type, IntegerType) else _INT64
    if not low <= value <= high or not _INT64[0] <= value <= _INT64[1]:
        raise error_at(
            fn, f"agpu-specialize: {name} = {value} does not fit {where} ({low}..{high})"
        )
    required = requirements_of(fn)
    if name in required and required[name] != value:
        raise error_at(
            fn,
            f"agpu-specialize: {where} is already specialised to {required[name]}, "
            f"cannot specialise it to {value}",
        )
    width = bit_width(arg.type)
    assert width is not None
    constant = arith.ConstantOp(IntegerAttr(to_signed(value, width), arg.type))
    constant.result.name_hint = arg.name_hint or name
    body = fn.body.block
    assert body.first_op is not None  # at least func.return
    body.insert_op_before(constant, body.first_op)
    arg.replace_all_uses_with(constant.result)
    required[name] = value
    fn.attributes[REQUIRES] = DictionaryAttr(
        {k: IntegerAttr(v, i64) for k, v in required.items()}
    )


@dataclass(frozen=True)
class AgpuSpecializePass(DeclaredOptionsPass):
    """Replace integer size parameters by constants (the kernel then requires those values)."""

    name = "agpu-specialize"

    sizes: str = option(
        "", doc='`NAME=INTEGER` entries separated by commas or spaces (quote the option value: '
        '`agpu-specialize{sizes="m=2048,n=2048"}`).')

    fold: bool = option(True, doc="Canonicalize afterwards, folding what the constants make "
                        "constant.")

    def __post_init__(self) -> None:
        super().__post_init__()
        parse_sizes(self.sizes)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        sizes = parse_sizes(self.sizes)
        found: set[str] = set()
        for fn in op.ops:
            if not isinstance(fn, func.FuncOp) or not fn.body.blocks:
                continue
            for arg in fn.body.block.args:
                name = c_name(arg)
                if name in sizes:
                    _specialize(fn, arg, name, sizes[name])
                    found.add(name)
        if missing := [name for name in sizes if name not in found]:
            raise PassError(
                "agpu-specialize: no function has a parameter named "
                + ", ".join(f"'{name}'" for name in missing)
            )
        if self.fold:
            HoistingCanonicalizePass().apply(ctx, op)
