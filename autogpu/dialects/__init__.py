"""Dialects of autogpu. `agpu` is the loop dialect (the AutoGPU level of a kernel)."""

from autogpu.dialects import arith_traits  # noqa: F401 (arith.extsi is Pure: see the module)
