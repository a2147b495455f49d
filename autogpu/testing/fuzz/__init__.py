"""Differential fuzzing of autogpu against gcc (docs/fuzzing.md): random UB-free C kernels
(`generator`), compiled through the pipelines and run on the CPU emulation of CUDA, compared
with gcc's build of the serial C (`runner`); failing programs shrink (`reduce`)."""
