"""Readable, valid and unique C identifiers for SSA values.

Names come from the IR's name hints (the C source names) where there are any. A name is made a
valid identifier, kept off C/C++/CUDA keywords and every builtin or function the generated code
may mention, and made unique among the names visible in enclosing scopes (so nothing is ever
shadowed), while sibling scopes may reuse it: two consecutive loops both get `i`.
"""

from __future__ import annotations

import re

RESERVED: frozenset[str] = frozenset(
    # C and C++ keywords, and words with a meaning in C++ code.
    """
    alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t
    char16_t char32_t class compl concept const consteval constexpr constinit const_cast
    continue co_await co_return co_yield decltype default delete do double dynamic_cast else
    enum explicit export extern false float for friend goto if inline int long mutable
    namespace new noexcept not not_eq nullptr operator or or_eq private protected public
    register reinterpret_cast requires restrict return short signed sizeof static
    static_assert static_cast struct switch template this thread_local throw true try typedef
    typeid typename union unsigned using virtual void volatile wchar_t while xor xor_eq
    _Bool _Complex _Imaginary main NULL std size_t ptrdiff_t
    """.split()
    # CUDA builtin variables and library names the kernels (or the runtimes) use.
    + """
    threadIdx blockIdx blockDim gridDim warpSize dim3 uint3 min max abs llabs isnan isinf
    INFINITY NAN
    """.split()
    # C math library functions, in float and double spellings.
    + [
        f"{base}{suffix}"
        for base in """
        sqrt rsqrt fabs pow exp exp2 exp10 expm1 log log2 log10 log1p sin cos tan sinh cosh tanh
        asin acos atan atan2 asinh acosh atanh floor ceil trunc round rint cbrt erf copysign fma
        fmin fmax fmod nan
        """.split()
        for suffix in ("", "f")
    ]
)


def sanitize(hint: str | None) -> str | None:
    """`hint` as a valid, non-reserved C identifier, or None if nothing readable is left."""
    if not hint:
        return None
    name = re.sub(r"[^A-Za-z0-9_]", "_", hint)
    name = re.sub(r"__+", "_", name)  # identifiers with `__` are reserved to the implementation
    if name[0].isdigit():
        name = f"v{name}"
    if name.startswith("_") or name.startswith("agpu_"):  # agpu_: the target's helpers
        name = f"v{name}"
    if name in RESERVED:
        name = f"{name}_"
    return name


class Scopes:
    """The C names visible at the current point of the generated code."""

    def __init__(self, reserved: frozenset[str] = RESERVED):
        self._reserved = reserved
        self._stack: list[set[str]] = [set()]

    def push(self) -> None:
        self._stack.append(set())

    def pop(self) -> None:
        self._stack.pop()

    def innermost(self) -> set[str]:
        """The names declared in the innermost scope so far."""
        return set(self._stack[-1])

    def visible(self, name: str) -> bool:
        return name in self._reserved or any(name in scope for scope in self._stack)

    def declare(self, hint: str | None) -> str:
        """A fresh name for a new declaration in the innermost scope."""
        base = sanitize(hint)
        if base is None:
            counter = 0  # the first free one: sibling scopes reuse v0, v1, ...
            while self.visible(name := f"v{counter}"):
                counter += 1
        else:
            name, suffix = base, 1
            while self.visible(name):
                name = f"{base}_{suffix}"
                suffix += 1
        self._stack[-1].add(name)
        return name

    def release(self, name: str) -> None:
        """Forget a name declared in the innermost scope (a declaration that was not emitted)."""
        self._stack[-1].discard(name)
