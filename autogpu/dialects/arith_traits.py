"""`arith.extsi` is `Pure`, as in MLIR; the pinned xDSL (0.74) forgets to say so.

xDSL declares `arith.extui` `Pure` but not `arith.extsi`, so every sign extension looked like an
op with unknown effects: dead-code elimination kept it (and the arithmetic it reads), the
polynomial analysis gave each one a fresh identity, and the out-of-core pass refused any nest
with one ("touches memory other than by loads and stores"). The frontend emits one for every
`int` widened to `long`, including each subscript of `A[i][j]` (docs/ir.md). The trait is added
once, through xDSL's own `OpTraits.add_trait`, when `autogpu.dialects` is imported (every pass,
the frontend and the `xdsl.universe` entry point import it: `autogpu/dialects/__init__.py`).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.traits import Pure


def declare_extsi_pure() -> None:
    if not arith.ExtSIOp.has_trait(Pure):
        arith.ExtSIOp.traits.add_trait(Pure())

