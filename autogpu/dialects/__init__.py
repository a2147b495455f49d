"""Dialects of autogpu. `agpu` is the loop dialect (the AutoGPU level of a kernel)."""
