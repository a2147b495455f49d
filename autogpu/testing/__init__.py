"""Reference execution: gcc's build of the user's serial C, random inputs, and exact comparison
of outputs. Together with `autogpu.interpreters` this lets every transformation be checked for
semantic equivalence on the CPU; gcc's build is also the tuner's reference
(`autogpu.tuner.reference`), which shares no code with what it checks."""

from autogpu.testing.c_signature import (
    CParameter,
    CSignature,
    dtype_of_ctype,
    parse_c_signature,
    signature_of,
)
from autogpu.testing.gcc_reference import (
    CReference,
    ReferenceCompileError,
    compile_c_reference,
)
from autogpu.testing.random_args import (
    assert_same_outputs,
    copy_args,
    first_difference,
    random_args,
)

__all__ = [
    "CParameter",
    "CReference",
    "CSignature",
    "ReferenceCompileError",
    "assert_same_outputs",
    "compile_c_reference",
    "copy_args",
    "dtype_of_ctype",
    "first_difference",
    "parse_c_signature",
    "random_args",
    "signature_of",
]
