"""`memref.atomic_rmw` → CUDA atomics.

The `kind` property uses MLIR's `arith::AtomicRMWKind` numbering. Kinds CUDA has a native
atomic for become that call (on the unsigned view of the bits where CUDA only has an unsigned
overload, e.g. 64-bit `atomicAdd`); the others (`mulf`, `muli`, `maxnumf`, ...) become a
compare-and-swap loop in a small helper `agpu_atomic_<kind>`, printed before the kernels.
"""

from __future__ import annotations

from dataclasses import dataclass

from autogpu.target.c_expr import Cast, Expr, Unary, call
from autogpu.target.c_types import Mode, convert
from autogpu.target.cuda_exprs import helper

ATOMIC_KINDS = (
    "addf", "addi", "andi", "assign", "maximumf", "maxnumf", "maxs", "maxu",
    "minimumf", "minnumf", "mins", "minu", "mulf", "muli", "ori", "xori",
)  # fmt: skip

# kind → (CUDA function, whether it needs the unsigned view of the element type)
_NATIVE = {
    "addf": ("atomicAdd", False),
    "addi": ("atomicAdd", True),
    "andi": ("atomicAnd", True),
    "ori": ("atomicOr", True),
    "xori": ("atomicXor", True),
    "assign": ("atomicExch", True),
    "maxs": ("atomicMax", False),
    "mins": ("atomicMin", False),
    "maxu": ("atomicMax", True),
    "minu": ("atomicMin", True),
}
_UNSIGNED_VIEW = {"int": "unsigned", "long long": "unsigned long long"}
# (kind, element) pairs that CUDA lacks although the kind is native for other types.
_NOT_NATIVE = {("assign", "double")}

# C for combining the current value `current` with `value`, per kind needing a CAS loop.
_COMBINE = {
    "mulf": "current * value",
    "muli": "({u})current * ({u})value",  # unsigned: wraps instead of overflowing
    "maxnumf": "{fmax}(current, value)",
    "minnumf": "{fmin}(current, value)",
    "maximumf": "agpu_maximum(current, value)",
    "minimumf": "agpu_minimum(current, value)",
    "assign": "value",
}
# element → (bits type, value→bits, bits→value)
_BITS = {
    "float": ("unsigned", "__float_as_uint({})", "__uint_as_float({})"),
    "double": (
        "unsigned long long",
        "(unsigned long long)__double_as_longlong({})",
        "__longlong_as_double((long long){})",
    ),
    "int": ("unsigned", "(unsigned)({})", "(int){}"),
    "long long": ("unsigned long long", "(unsigned long long)({})", "(long long){}"),
}


_BITS["unsigned"] = ("unsigned", "({})", "{}")
_BITS["unsigned long long"] = ("unsigned long long", "({})", "{}")


def bit_view(element: str) -> tuple[str, str, str]:
    """The unsigned word `atomicCAS` swaps for `element`, and the formats converting a value
    to it and back."""
    if element not in _BITS:
        raise AtomicUnsupported(f"atomic update of a {element}")
    return _BITS[element]


def _cas_helper(kind: str, element: str) -> str:
    bits, to_bits, from_bits = _BITS[element]
    suffix = "f" if element == "float" else ""
    combine = _COMBINE[kind].format(fmax=f"fmax{suffix}", fmin=f"fmin{suffix}", u=bits)
    return f"""\
static __device__ inline {element} agpu_atomic_{kind}({element} *address, {element} value) {{
  {bits} *bits = ({bits} *)address;
  {bits} old = *bits, assumed;
  do {{
    assumed = old;
    const {element} current = {from_bits.format("assumed")};
    old = atomicCAS(bits, assumed, {to_bits.format(combine)});
  }} while (assumed != old);
  return {from_bits.format("old")};
}}"""


class AtomicUnsupported(Exception):
    pass


# Elements narrower than a word: CUDA has no atomics on them (but 16-bit atomicCAS on recent
# GPUs), so a CAS loop swaps the aligned 32-bit word that contains the element, changing only
# its bytes (their unsigned view `U`, signed view `S`). The neighbouring bytes may belong to
# other data updated concurrently: the CAS then fails and retries, so no update is lost.
_SUBWORD = {  # element → (bits, unsigned view, signed view)
    "bool": (8, "unsigned char", "signed char"),
    "signed char": (8, "unsigned char", "signed char"),
    "unsigned char": (8, "unsigned char", "signed char"),
    "short": (16, "unsigned short", "short"),
    "unsigned short": (16, "unsigned short", "short"),
}
# On the zero-extended bits `a` (current) and `b` (value), as `unsigned`: the low bits of the
# result are the element's (C's conversion back to a narrow type keeps them).
_SUBWORD_COMBINE = {
    "addi": "a + b", "muli": "a * b", "andi": "a & b", "ori": "a | b", "xori": "a ^ b",
    "assign": "b", "maxu": "a > b ? a : b", "minu": "a < b ? a : b",
    "maxs": "({S})a > ({S})b ? a : b", "mins": "({S})a < ({S})b ? a : b",
}  # fmt: skip


@dataclass(frozen=True)
class SubwordView:
    """An 8- or 16-bit element as bits of the aligned 32-bit word holding it: the C text that
    finds the word and the element's place in it, takes the element's zero-extended bits out
    of a word's value, and puts new bits in (every other bit kept)."""

    bits: int

    @property
    def low(self) -> str:
        return "0xFFu" if self.bits == 8 else "0xFFFFu"

    def word(self, address: str) -> str:
        return f"(unsigned *)((unsigned long long){address} & ~3ull)"

    def shift(self, address: str) -> str:
        return f"8u * (unsigned)((unsigned long long){address} & 3ull)"

    def mask(self, shift: str) -> str:
        return f"{self.low} << {shift}"

    def extract(self, word: str, mask: str, shift: str) -> str:
        return f"({word} & {mask}) >> {shift}"

    def insert(self, word: str, new: str, mask: str, shift: str) -> str:
        return f"({word} & ~{mask}) | (((unsigned)({new}) << {shift}) & {mask})"


def subword_view(element: str) -> SubwordView | None:
    """The sub-word view of `element` (a C type name), None for a 32- or 64-bit type."""
    return SubwordView(_SUBWORD[element][0]) if element in _SUBWORD else None


def _subword_helper(kind: str, element: str) -> tuple[str, str]:
    bits, _unsigned, signed = _SUBWORD[element]
    view = SubwordView(bits)
    name = f"agpu_atomic_{kind}_u{bits}"
    combine = _SUBWORD_COMBINE[kind].format(S=signed)
    current = ("" if kind == "assign" else  # an exchange does not read the element
               f"\n    const unsigned a = {view.extract('assumed', 'mask', 'shift')};")  # fmt: skip
    return name, f"""\
// {kind} on the {bits}-bit element at `address`: a CAS on its aligned 32-bit word
static __device__ inline unsigned {name}(void *address, unsigned value) {{
  unsigned *word = {view.word("address")};
  const unsigned shift = {view.shift("address")};
  const unsigned mask = {view.mask("shift")};
  const unsigned b = value & {view.low};
  unsigned old = *word, assumed;
  do {{
    assumed = old;{current}
    old = atomicCAS(word, assumed, {view.insert("assumed", combine, "mask", "shift")});
  }} while (assumed != old);
  return {view.extract("old", "mask", "shift")};
}}"""


def _subword_call(kind: str, element: str, target: Expr, value: Expr,
                  helpers: dict[str, str]) -> Expr:
    if kind not in _SUBWORD_COMBINE or (element == "bool" and kind not in (
            "andi", "ori", "xori", "assign")):
        raise AtomicUnsupported(f"atomic {kind} on {element}")
    name, text = _subword_helper(kind, element)
    helpers[name] = text
    old = call(name, [Unary("&", target), convert(value, "unsigned", Mode.EXACT)], "unsigned")
    return Cast(element, old)


def atomic_call(
    kind: str, element: str, target: Expr, value: Expr, helpers: dict[str, str]
) -> Expr:
    """The call performing `target op= value` atomically; its value is the old one."""
    if element in _SUBWORD:
        return _subword_call(kind, element, target, value, helpers)
    if element not in _BITS:
        raise AtomicUnsupported(f"atomic {kind} on {element}")
    native = _NATIVE.get(kind)
    if native is not None and (kind, element) not in _NOT_NATIVE:
        function, unsigned = native
        if kind in ("addf",) and element not in ("float", "double"):
            raise AtomicUnsupported(f"atomic {kind} on {element}")
        view = _UNSIGNED_VIEW.get(element, element) if unsigned else element
        if kind in ("addi", "andi", "ori", "xori", "assign") and element == "int":
            view = "int"  # CUDA has the int overloads of these
        address: Expr = Unary("&", target)
        if view != element:
            address = Cast(f"{view} *", address)
        return call(function, [address, convert(value, view, Mode.EXACT)], view)
    if kind not in _COMBINE:
        raise AtomicUnsupported(f"atomic {kind} on {element}")
    if kind in ("mulf", "maxnumf", "minnumf", "maximumf", "minimumf") and element not in (
        "float",
        "double",
    ):
        raise AtomicUnsupported(f"atomic {kind} on {element}")
    name = f"agpu_atomic_{kind}"
    if kind in ("maximumf", "minimumf"):
        helper(helpers, f"agpu_{kind[:7]}", element)  # the scalar helper it calls
    helpers[f"{name} {element}"] = _cas_helper(kind, element)
    return call(name, [Unary("&", target), convert(value, element, Mode.EXACT)], element)
