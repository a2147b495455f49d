"""The runtime: running the kernels the `cuda` target emits, on the CPU (an exact emulation of
CUDA's threads, blocks, `__shared__` and barriers) and on the GPU through pycuda, with the
checks of the arguments a call passes."""
