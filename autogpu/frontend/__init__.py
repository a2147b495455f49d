"""The C frontend: a lark grammar for the C subset of serial kernels, and IR generation."""
