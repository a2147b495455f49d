"""autogpu: serial C loop nests in, CUDA kernels out, chosen by measuring on a real GPU."""

__version__ = "0.1.0"
