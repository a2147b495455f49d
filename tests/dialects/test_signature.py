"""The C signature convention has one owner (autogpu/dialects/signature.py): the attribute
names, the reader and writer of parameters, the C type table, and the shared-memory bytes the
launch description gives the tuner."""

from __future__ import annotations

import ctypes
import math
import re
import struct
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func, gpu, memref
from xdsl.dialects.builtin import IndexType, IntegerType, MemRefType, ModuleOp, f32, f64, i32, i64
from xdsl.parser import Parser

import autogpu
from autogpu.context import make_context
from autogpu.dialects import signature
from autogpu.dialects.signature import (
    C_TYPES,
    CParameter,
    CSignature,
    CType,
    UnsupportedType,
    c_type,
    of_ir,
    resolve,
)
from autogpu.frontend import parse_c
from autogpu.tuner import adapter
from autogpu.tuner.kernel import KernelCompiler
from autogpu.tuner.space import Space

PACKAGE = Path(autogpu.__file__).parent
OWNER = PACKAGE / "dialects" / "signature.py"


def _sources_but_the_owner() -> list[tuple[Path, str]]:
    return [(p, p.read_text()) for p in sorted(PACKAGE.rglob("*.py")) if p != OWNER]


# --- one owner -------------------------------------------------------------------------------


def test_no_agpu_attribute_is_spelled_outside_the_owner():
    names = "|".join(re.escape(n[len("agpu."):]) for n in
                     signature.ARGUMENT_ATTRIBUTES + signature.FUNCTION_ATTRIBUTES)
    literal = re.compile(rf"""["']agpu\.({names})["']""")
    found = [f"{p.relative_to(PACKAGE)}: {m.group()}"
             for p, text in _sources_but_the_owner() for m in literal.finditer(text)]
    assert found == []


def test_no_other_c_type_table():
    """No NumPy dtype name or ctypes scalar type is spelled outside the table."""
    dtype_names = "|".join(t.dtype for t in C_TYPES.values() if t.dtype != "bool")  # a C name
    table_entry = re.compile(
        rf"""["']({dtype_names})["']|ctypes\.c_(bool|u?int\d+|float|double)\b""")
    found = [f"{p.relative_to(PACKAGE)}: {m.group()}"
             for p, text in _sources_but_the_owner() for m in table_entry.finditer(text)]
    assert found == []


def test_the_tuner_reads_shared_bytes_from_the_launch_description_not_the_cuda_text():
    assert not hasattr(adapter, "static_shared_bytes")
    tuner_sources = "".join(p.read_text() for p in (PACKAGE / "tuner").glob("*.py"))
    assert "__shared__\\s" not in tuner_sources
    assert "_SHARED_DECL" not in tuner_sources


# --- the C type table --------------------------------------------------------------------------


@pytest.mark.parametrize("t", list(C_TYPES.values()), ids=lambda t: t.name)
def test_every_c_type_agrees_with_itself(t: CType):
    dtype = np.dtype(t.dtype)
    assert dtype.itemsize == ctypes.sizeof(t.ctypes) == struct.calcsize(t.struct) == t.size
    assert dtype.kind == ("f" if t.is_float else "b" if t.bits == 1 else "i" if t.signed else "u")
    assert t.bits == (1 if t.bits == 1 else 8 * dtype.itemsize)
    assert c_type(t.name) is t
    assert of_ir(t.ir, unsigned=not t.signed) is t


def test_the_frontends_types_are_the_tables():
    from autogpu.frontend.types import SCALARS

    for scalar in SCALARS:
        t = c_type(scalar.name)
        assert t is not None, scalar.name
        assert (t.ir, t.is_float, t.bits, t.signed) == (
            scalar.ir, scalar.is_float, scalar.bits, scalar.signed)


@pytest.mark.parametrize(
    "spelling, canonical",
    [("int", "int"), ("signed", "int"), ("unsigned int", "unsigned"), ("long", "long long"),
     ("long unsigned int", "unsigned long long"), ("unsigned long", "unsigned long long"),
     ("long long int", "long long"), ("size_t", "unsigned long long"), ("char", "signed char"),
     ("unsigned char", "unsigned char"), ("short int", "short"), ("_Bool", "bool"),
     ("int32_t", "int"), ("uint64_t", "unsigned long long"), ("double", "double")],
)
def test_spellings(spelling: str, canonical: str):
    assert c_type(spelling) is C_TYPES[canonical]


@pytest.mark.parametrize("spelling", ["", "struct s", "signed unsigned", "short long",
                                      "long long long", "char int", "int int", "half"])
def test_invalid_spellings(spelling: str):
    assert c_type(spelling) is None


def test_resolve_keeps_the_spelling_only_where_it_fits_the_ir_type():
    assert resolve("unsigned", i32).name == "unsigned"
    assert resolve("size_t", IndexType()).name == "unsigned long long"
    assert resolve("unsigned", i64).name == "long long"  # the IR type wins over a stale spelling
    assert resolve(None, f64).name == "double"
    with pytest.raises(UnsupportedType):
        resolve("int", IntegerType(7))


# --- reading and writing the attributes --------------------------------------------------------


def test_the_frontends_attributes_read_back_as_the_parameters_written():
    params = (
        CParameter("n", "unsigned", i32, False, const=True),
        CParameter("A", "float", f32, True, restrict=True, extents=("?", "n")),
        CParameter("s", "size_t", i64, False),
    )
    written = CSignature("f", params)
    function = func.FuncOp("f", ([i32, MemRefType(f32, [-1]), i64], []),
                           arg_attrs=written.arg_attrs())
    assert CSignature.of(function) == written
    assert [p.dtype.name for p in written.params] == ["uint32", "float32", "uint64"]


def test_c_level_ir_records_the_signature_the_frontend_read():
    module = parse_c("void f(int m, const double x[][m], unsigned long k, float *restrict y)"
                     " {\n}\n")
    (function,) = module.body.block.ops
    assert isinstance(function, func.FuncOp)
    assert CSignature.of(function) == CSignature("f", (
        CParameter("m", "int", i32, False),
        CParameter("x", "double", f64, True, const=True, extents=("?", "m")),
        CParameter("k", "unsigned long", i64, False),
        CParameter("y", "float", f32, True, restrict=True),
    ))


def test_unrecorded_names_and_types_fall_back_to_the_ir():
    ir = 'func.func @g(%len: i64, %v: memref<?xi1>) {\n  func.return\n}\n'
    function = Parser(make_context(), ir).parse_module().body.block.first_op
    assert isinstance(function, func.FuncOp)
    params = CSignature.of(function).params
    assert [(p.name, p.ctype, p.dtype.name) for p in params] == [
        ("len", "long long", "int64"), ("v", "bool", "bool")]


# --- static shared memory in the launch description --------------------------------------------


def _shared_allocation_bytes(module: ModuleOp) -> dict[str, int]:
    """Bytes of every workgroup (memory space 3) allocation, per kernel, read off the IR."""
    totals: dict[str, int] = {}
    for kernel in module.walk():
        if isinstance(kernel, gpu.FuncOp):
            total = 0
            for op in kernel.walk():
                if isinstance(op, memref.AllocaOp) and "3 : i32" in str(op.memref.type):
                    element = op.memref.type.element_type
                    width = element.bitwidth if isinstance(element, IntegerType) else (
                        32 if element == f32 else 64)
                    total += math.prod(op.memref.type.get_shape()) * max(width // 8, 1)
            totals[kernel.sym_name.data] = total
    return totals


@pytest.mark.parametrize("example, options", [
    ("matmul.c", 'sizes="m=256,n=256,p=256" unroll_x=2 unroll_y=8'),
    ("dot.c", ""),
    ("saxpy.c", ""),
])
def test_static_shared_bytes_are_the_sum_of_the_shared_allocations(example: str, options: str):
    from autogpu.api import run_pipeline
    from autogpu.target.cuda_target import emit_cuda

    source = (PACKAGE.parent / "examples" / example).read_text()
    module = run_pipeline(parse_c(source, example), f"autogpu-optimize{{{options}}}")
    expected = _shared_allocation_bytes(module)
    launches = [entry for f in emit_cuda(module).launch["functions"] for entry in f["launches"]]
    assert launches
    assert all(
        entry["static_shared_bytes"] == expected[entry["kernel"]] for entry in launches)
    if example != "saxpy.c":
        assert any(entry["static_shared_bytes"] > 0 for entry in launches)


def test_the_tuner_checks_the_described_static_shared_bytes():
    launch = {"functions": [{"name": "f", "params": [], "launches": [
        {"kernel": "k", "grid": ["1", "1", "1"], "block": ["32", "1", "1"], "args": [],
         "dynamic_shared_bytes": "1024", "static_shared_bytes": 48 * 1024}]}]}
    artifact = adapter.Artifact('extern "C" __global__ void k() {}\n', launch, "f")
    compiler = KernelCompiler("", "f.c", "f", Space([]), {}, max_shared=48 * 1024)
    assert compiler.check({}, artifact) == (
        f"k: {49 * 1024} bytes of shared memory per block > limit {48 * 1024}")
