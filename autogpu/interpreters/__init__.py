"""Reference execution of C-level IR on NumPy arrays, with C's semantics to the bit.

`run_function(module, name, args)` runs `func.func @name` (parallel loops sequentially, in
order), updating the caller's arrays in place. It exists so that every transformation can be
checked for semantic equivalence on the CPU against the IR before it and against gcc.
"""

from autogpu.interpreters.c_semantics import (
    InterpreterError,
    OutOfBoundsError,
    UndefinedBehaviorError,
)
from autogpu.interpreters.python_codegen import CompiledModule, compile_module
from autogpu.interpreters.run import run_function

__all__ = [
    "CompiledModule",
    "InterpreterError",
    "OutOfBoundsError",
    "UndefinedBehaviorError",
    "compile_module",
    "run_function",
]
