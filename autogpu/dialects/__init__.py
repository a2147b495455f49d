"""Dialects of autogpu. `agpu` is the loop dialect (the AutoGPU level of a kernel)."""

from autogpu.dialects.arith_traits import declare_extsi_pure

declare_extsi_pure()  # before any pass or the frontend builds IR: see the module
