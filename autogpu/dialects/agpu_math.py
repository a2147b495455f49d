"""`agpu.math_call`: a `<math.h>` function that xDSL 0.74's `math` dialect has no op for.

`%r = "agpu.math_call"(%x) <{function = "erfc"}> : (f32) -> f32` computes C's `erfcf(x)`: the
float form when the floating-point operands are `f32`, the double form on `f64`. The function
and its signature come from the table of `autogpu/dialects/c_math.py` (`CALLED`), which the
verifier checks: floating-point parameters and results of the one type, `int` parameters
`i32`, `long` ones `i64`, an `int` result `i32`. The op is pure, like the `math` ops.
"""

from __future__ import annotations

from xdsl.dialects.builtin import Float32Type, Float64Type, IntegerType, StringAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from autogpu.dialects.c_math import CALLED, FLOATING, MathFunction

_INTEGER_BITS = {"int": 32, "long": 64}


def _ir_type(kind: str, floating: Attribute) -> Attribute:
    return floating if kind == FLOATING else IntegerType(_INTEGER_BITS[kind])


@irdl_op_definition
class MathCallOp(IRDLOperation):
    """A call of the C function `function` (c_math.CALLED) on its IR-typed arguments."""

    name = "agpu.math_call"

    function = prop_def(StringAttr)
    arguments = var_operand_def()
    result = result_def()

    traits = traits_def(Pure())

    def __init__(self, function: str, arguments: list[SSAValue], result_type: Attribute):
        super().__init__(
            operands=[arguments],
            result_types=[result_type],
            properties={"function": StringAttr(function)},
        )

    @property
    def facts(self) -> MathFunction:
        return CALLED[self.function.data]

    @property
    def floating_type(self) -> Attribute:
        """f32 or f64: the type of the floating-point parameters (which form is called)."""
        first = self.facts.params.index(FLOATING)
        return self.arguments[first].type

    @property
    def single(self) -> bool:
        return isinstance(self.floating_type, Float32Type)

    def verify_(self) -> None:
        name = self.function.data
        if name not in CALLED:
            raise VerifyException(
                f"agpu.math_call of unknown function '{name}': expected one of "
                + ", ".join(sorted(CALLED))
            )
        facts = CALLED[name]
        if len(self.arguments) != facts.arity:
            raise VerifyException(
                f"agpu.math_call '{name}' takes {facts.arity} arguments, got {len(self.arguments)}"
            )
        floating = self.floating_type
        if not isinstance(floating, Float32Type | Float64Type):
            raise VerifyException(f"agpu.math_call '{name}' computes on f32 or f64, not {floating}")
        expected = [_ir_type(kind, floating) for kind in facts.params]
        actual = [a.type for a in self.arguments]
        if actual != expected or self.result.type != _ir_type(facts.result, floating):
            want = ", ".join(map(str, expected))
            raise VerifyException(
                f"agpu.math_call '{name}' has type ({want}) -> "
                f"{_ir_type(facts.result, floating)}"
            )


MATH_OPS = [MathCallOp]
