"""Analyses shared by autogpu's transformations of the C-level/agpu IR.

- `polynomial`: index expressions as polynomials over atoms in the modular arithmetic of their
  integer type, to prove two array accesses hit the same element, or never do, and to tile them.
- `integers`: widths, two's complement readings and constants of integer values.
- `extents`: the range of elements each array access may touch (array lengths, bounds).
- `iterations`: trip counts, parallel depth, parallel work and the longest accumulation of a
  function for concrete sizes (what the tuner checks and sizes its tolerance by).
- `loops`: constant bounds and trip counts, loop invariance, hoisting of index computations and
  symbolic bounds of an index over its loops.
- `dependences`: whether two iterations of a parallel loop may touch one array element (the
  legality check of `#pragma omp parallel for`).
- `aliasing`: where a memref comes from (parameter, local allocation, unknown) and whether two
  memrefs may overlap under C's rules (`restrict`), plus the memory accesses inside a region.
"""
