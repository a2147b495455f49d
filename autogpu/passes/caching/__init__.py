"""The pieces of `gpu-cache-shared` (caching global reads through `__shared__` memory):

- `facts`: what a kernel knows about its threads: block shape, block-uniform values, guards,
  polynomial index forms with the thread indices as atoms, ops that may run speculatively;
- `materialize`: recomputing block-uniform values (and polynomials) at another point;
- `uniform_control`: making barriers reachable by every thread of the block (thread loops
  turned into uniform loops, thread guards distributed around barriers);
- `footprint`: which elements the threads of a block read through a group of loads, as a box
  of offsets (the tile, with its halo);
- `tiling`: strip-mining a serial loop, and emitting the cooperative load and the shared reads.
"""
