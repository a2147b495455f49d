"""The one way to declare a pass option: a dataclass field that carries its own facts.

xDSL reads a pass's options from its dataclass fields (`-p 'pass{opt=v}'`), so an option stays a
field; `option(...)` hangs on it everything the rest of autogpu would otherwise repeat: the doc
(`autogpu-opt --help`), the valid range (checked when the pass is built, the message naming the
pass), the values the tuner tries, and the option's role (threads of a block along y, ...),
which the tuner's restrictions need. The pipelines generate their options from these
declarations (`pipelines.py`) and the tuner reads them (`tuner/space.py`), so one `option(...)`
on a pass is a knob of the pass, of the pipelines that run it, and of the tuner's space:

    @dataclass(frozen=True)
    class MyPass(DeclaredOptionsPass):
        name = "my-pass"
        depth: int = option(2, doc="How deep to look.", check=at_least(1), tuning="[1, 2, 4]")
"""

from __future__ import annotations

import dataclasses
import textwrap
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from xdsl.passes import ModulePass

from autogpu.narrowing import is_tuple
from autogpu.passes.utils.errors import PassError

METADATA_KEY = "autogpu.option"

Check = Callable[[str, Any], "str | None"]
"""A validity check of one option: (option name, value) -> what is wrong, or None."""


# --- roles -------------------------------------------------------------------------------------

THREADS = "threads per block"
PARALLEL_UNROLL = "parallel unroll factor"
SHARED_LIMIT = "the device's shared memory per block"
AXES = ("x", "y", "z")


@dataclass(frozen=True)
class Role:
    """What an option means to the tuner, which cannot tell from a name: the threads of a block
    along an axis (their product is bounded by the device), or the parallel unroll factor along
    an axis (an axis the kernel lacks is not tuned)."""

    quantity: str  # THREADS or PARALLEL_UNROLL
    axis: int  # 0, 1, 2: x, y, z

    def __str__(self) -> str:
        if self.quantity == SHARED_LIMIT:
            return self.quantity
        return f"{self.quantity} along {AXES[self.axis]}"


def threads(axis: int) -> Role:
    return Role(THREADS, axis)


def parallel_unroll(axis: int) -> Role:
    return Role(PARALLEL_UNROLL, axis)


def device_shared() -> Role:
    """A budget of shared memory per block that the tuner sets to its device's opt-in maximum
    (`max_shared`) where it knows one above CUDA's static 48 KiB; the default elsewhere."""
    return Role(SHARED_LIMIT, 0)


# --- checks ------------------------------------------------------------------------------------


def at_least(minimum: int, says: str | None = None) -> Check:
    """`value >= minimum`, else '<option> must be at least <minimum>, got <value>'; `says`
    words the range where a bare number is not the clearest ("at least 0 bytes")."""
    wording = says or f"at least {minimum}"

    def check(name: str, value: Any) -> str | None:
        return None if value >= minimum else f"{name} must be {wording}, got {value}"

    return check


def one_of(*choices: str) -> Check:
    """One of `choices`, else '<option> must be one of a, b; got '<value>''."""

    def check(name: str, value: Any) -> str | None:
        if value in choices:
            return None
        return f"{name} must be one of {', '.join(choices)}; got '{value}'"

    return check


def one_of_ints(*choices: int) -> Check:
    """One of the integers `choices`, else '<option> must be one of 1, 2, 4; got <value>'."""

    def check(name: str, value: Any) -> str | None:
        if value in choices and not isinstance(value, bool):
            return None
        return f"{name} must be one of {', '.join(map(str, choices))}; got {value}"

    return check


# --- declarations ------------------------------------------------------------------------------


@dataclass(frozen=True)
class OptionDecl:
    """The facts of one option beyond its name, type and default (which the field holds)."""

    doc: str
    check: Check | None = None
    tuning: str | None = None  # candidate values (a list or a generator, see tuner/space.py)
    role: Role | None = None


def option(default: Any, *, doc: str, check: Check | None = None, tuning: str | None = None,
           role: Role | None = None) -> Any:
    """A pass option: a dataclass field with default `default` and its declaration."""
    if isinstance(default, (list, dict, set)):
        raise TypeError("an option's default must be immutable (use a tuple)")
    decl = OptionDecl(" ".join(doc.split()), check, tuning, role)
    return dataclasses.field(default=default, metadata={METADATA_KEY: decl})


def declared(field: dataclasses.Field[Any]) -> OptionDecl | None:
    return field.metadata.get(METADATA_KEY)


def option_fields(cls: type[ModulePass]) -> list[dataclasses.Field[Any]]:
    """The options of a pass class, in declaration order (xDSL's: the init fields)."""
    return [f for f in dataclasses.fields(cls) if f.init and f.name != "name"]


def declarations(cls: type[ModulePass]) -> dict[str, OptionDecl]:
    """The declared options of a pass class by name, in declaration order; a pass autogpu does
    not own (xDSL's) declares none."""
    found = {f.name: decl for f in option_fields(cls) if (decl := declared(f)) is not None}
    if issubclass(cls, DeclaredOptionsPass):
        if missing := [f.name for f in option_fields(cls) if f.name not in found]:
            raise TypeError(f"{cls.name}: options {', '.join(missing)} are not declared with "
                            "option(...)")
    return found


def roles(cls: type[ModulePass]) -> dict[str, Role]:
    return {name: d.role for name, d in declarations(cls).items() if d.role is not None}


def help_text(cls: type[ModulePass]) -> str:
    """The options of a pass as `autogpu-opt --help-options` lists them: type, default, doc,
    tuning values, role, and what a pass adds about each (`option_notes`)."""
    summary = " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())
    lines = [f"{cls.name}: {summary}" if summary else cls.name]
    hints = typing.get_type_hints(cls)
    notes = getattr(cls, "option_notes", None)
    for name, decl in declarations(cls).items():
        (f,) = [f for f in option_fields(cls) if f.name == name]
        kind = hints[name].__name__ if isinstance(hints[name], type) else str(hints[name])
        lines.append(f"  {name}: {kind} = {_spelled(f.default)}")
        extra = [decl.doc]
        if decl.tuning is not None:
            extra.append(f"Tuned over {decl.tuning}.")
        if decl.role is not None:
            extra.append(f"Role: {decl.role}.")
        extra += notes(name) if notes is not None else []
        lines += textwrap.wrap(" ".join(extra), 96, initial_indent=" " * 6,
                               subsequent_indent=" " * 6, break_on_hyphens=False)
    return "\n".join(lines)


def _spelled(value: Any) -> str:
    """A default as `-p 'pass{name=value}'` writes it."""
    if isinstance(value, bool):
        return str(value).lower()
    if is_tuple(value):
        return ",".join(map(str, value)) or "(none)"
    return f'"{value}"' if isinstance(value, str) else str(value)


class _TuningSpace:
    """`TUNING_SPACE` of a declared pass, computed from its declarations (what the tuner's
    adapter reads): option -> candidate values, for the options that declare them."""

    def __get__(self, instance: Any, owner: type[ModulePass]) -> dict[str, str]:
        return {name: d.tuning for name, d in declarations(owner).items() if d.tuning is not None}


class DeclaredOptionsPass(ModulePass):
    """A pass whose options are all declared with `option(...)`: building it checks each one
    (a `PassError` '<pass>: <what is wrong>'), and its tuning space is their tuning values.

    A subclass with cross-option checks (a block shape) overrides `__post_init__` and calls
    `super().__post_init__()` first."""

    TUNING_SPACE: ClassVar[Any] = _TuningSpace()
    TUNING_RESTRICTIONS: ClassVar[tuple[str, ...]] = ()
    """Expressions over the pass's options and the sizes that every tuned configuration must
    satisfy."""

    def __post_init__(self) -> None:
        for f in option_fields(type(self)):
            decl = declared(f)
            if decl is not None and decl.check is not None:
                problem = decl.check(f.name, getattr(self, f.name))
                if problem is not None:
                    raise PassError(f"{self.name}: {problem}")
