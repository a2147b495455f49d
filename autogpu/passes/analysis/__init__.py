"""Analyses shared by autogpu's transformations of the C-level/agpu IR.

- `linear`: index expressions as linear forms (coefficient x atom + constant) in the modular
  arithmetic of their integer type, to prove two array accesses hit the same element, or never do.
- `loops`: constant bounds and trip counts, loop invariance and hoisting of index computations.
- `aliasing`: where a memref comes from (parameter, local allocation, unknown) and whether two
  memrefs may overlap under C's rules (`restrict`), plus the memory accesses inside a region.
"""
