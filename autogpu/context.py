"""One place that knows every dialect an autogpu program may contain."""

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, gpu, math, memref, scf

from autogpu.dialects.agpu import AGPU

DIALECTS = (
    builtin.Builtin,
    func.Func,
    scf.Scf,
    arith.Arith,
    math.Math,
    memref.MemRef,
    gpu.GPU,
    AGPU,
)


def make_context() -> Context:
    """A context with the dialects of every stage: C-level IR, agpu loops, lowered gpu IR."""
    ctx = Context()
    for dialect in DIALECTS:
        ctx.load_dialect(dialect)
    return ctx
