"""Arguments of a kernel call, checked against the launch description before anything runs.

Both executors (the CPU emulation in `cpu_exec` and pycuda in `cuda_exec`) bind the user's arrays
(NumPy, or device arrays: CuPy, PyTorch, any `__cuda_array_interface__` or DLPack object) and
Python scalars through `bind_arguments`, so that they accept and reject exactly the same calls,
and compute the launches a call runs (the function's host program, with each launch's grid)
through `launch_trace`. Arrays are never converted: a silent copy would receive the kernel's
outputs and the caller's array would not, so a wrong dtype, a strided view or a read-only output
is an error that names the parameter. A bound array is an `array_arguments.ArrayArgument`, which
each executor stages into its memory as the parameter's OpenMP `map` says.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from autogpu.dialects.signature import C_TYPES, LEFT_OUT
from autogpu.narrowing import is_list, is_mapping, is_sequence
from autogpu.numeric import is_boolean, is_integer, is_ndarray, is_number
from autogpu.runtime.array_arguments import ArrayArgument, array_argument
from autogpu.runtime.array_views import LEGACY_STREAM, ArrayInterfaceError, array_view, is_array
from autogpu.runtime.errors import (  # the executors' errors, named here as before
    KernelArgumentError as KernelArgumentError,
)
from autogpu.runtime.errors import (
    KernelCompileError as KernelCompileError,
)
from autogpu.runtime.errors import (
    KernelEnvironmentError as KernelEnvironmentError,
)
from autogpu.runtime.errors import (
    KernelLaunchError as KernelLaunchError,
)
from autogpu.runtime.errors import (
    LaunchDescriptionError as LaunchDescriptionError,
)
from autogpu.runtime.parts_spec import parse_parts
from autogpu.target.cuda_limits import MAX_BLOCK, MAX_GRID, MAX_THREADS_PER_BLOCK
from autogpu.target.launch import evaluate, launch_config
from autogpu.target.launch_steps import (
    Reader,
    check_steps,
    counters,
    has_reads,
    iterate_steps,
    steps_of,
)
from autogpu.target.requirements import violation


@dataclass(frozen=True)
class Param:
    """One parameter of the C function, as the launch description gives it."""

    name: str
    kind: str  # "array" or "scalar"
    dtype: np.dtype
    ctype: str
    const: bool = False
    restrict: bool = False
    extents: tuple[str | int | None, ...] | None = None  # C99 array extents, outermost first
    map: str = "tofrom"  # OpenMP map of an array: what moves between host and device

    @property
    def is_array(self) -> bool:
        return self.kind == "array"

    def describe(self) -> str:
        what = f"{self.dtype.name} array" if self.is_array else self.dtype.name
        return f"{what} (C type {'const ' if self.const else ''}{self.ctype})"


@dataclass(frozen=True)
class Scratch:
    """A device buffer of one call that no parameter holds (the launch description's
    `scratch`): `elements` of `dtype`, an expression of the scalar parameters; every executor
    allocates it zero-filled when the call starts and frees it when the call ends, so that
    launches of the call can pass it (per-block partial results that a later launch combines)
    and nothing is left over across calls."""

    name: str
    dtype: np.dtype
    elements: str

    @property
    def param(self) -> Param:
        """The scratch as the array parameter a launch passes."""
        return Param(self.name, "array", self.dtype, _ctype_of(self.dtype))


def _ctype_of(dtype: np.dtype) -> str:
    return next((name for name, c in C_TYPES.items() if np.dtype(c.dtype) == dtype), dtype.name)


@dataclass(frozen=True)
class LaunchEntry:
    """One kernel launch of a function: expressions over the scalar parameters."""

    kernel: str
    grid: tuple[str, str, str]
    block: tuple[str, str, str]
    args: tuple[str, ...]
    dynamic_shared_bytes: str
    part_nest: int | None = None  # agpu-out-of-core, several nests: the nest it runs
    # OpenMP's num_teams(e)/thread_limit(e) of run-time value: (clause, e), checked at launch
    launch_bounds: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Function:
    """A C function of the launch description: its parameters and the kernels it launches."""

    name: str
    params: tuple[Param, ...]
    launches: tuple[LaunchEntry, ...]
    requires: tuple[tuple[str, int], ...] = ()  # scalar values the kernels were compiled for
    steps: tuple[Any, ...] = ()  # the host program (launch_steps); () runs each launch once
    counters: tuple[Param, ...] = ()  # the loop counters of the host program, as scalars
    parts: Any = None  # agpu-out-of-core's footprints (runtime.parts_spec.PartsSpec, one per
    # nest), else None
    scratch: tuple[Scratch, ...] = ()  # device buffers of each call (`Scratch`)

    @property
    def reads_device(self) -> bool:
        """Whether the host program reads what kernels computed (a convergence loop): its
        launches are known only as it runs (`launches`), not ahead (`launch_trace`)."""
        return has_reads(self.steps)

    def param(self, name: str) -> Param:
        """A parameter, a counter of the host program or a scratch (what a launch may pass)."""
        for p in (*self.params, *self.counters, *(s.param for s in self.scratch)):
            if p.name == name:
                return p
        raise LaunchDescriptionError(f"function '{self.name}' has no parameter '{name}'")


@dataclass(frozen=True)
class LaunchConfig:
    """A launch's evaluated configuration."""

    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    dynamic_shared_bytes: int

    @property
    def empty(self) -> bool:
        """No block to run (a grid of `(n + 255) / 256` blocks for n <= 0): the loop the grid
        covers is empty, so the executors skip the launch (CUDA would reject it)."""
        return any(g <= 0 for g in self.grid)


@dataclass(frozen=True)
class Launch:
    """One launch a call runs: its entry, its configuration, and the host program's loop
    counters in scope (NumPy scalars of their C types) that its arguments may name."""

    entry: LaunchEntry
    config: LaunchConfig
    counters: Mapping[str, np.generic]

    def argument(self, name: str, call: BoundCall) -> Any:
        return self.counters[name] if name in self.counters else call.values[name]


@dataclass(frozen=True)
class BoundCall:
    """Checked arguments: arrays as `ArrayArgument`s, scalars as NumPy scalars of the exact C
    type."""

    function: Function
    values: dict[str, ArrayArgument | np.generic]

    @property
    def scalars(self) -> dict[str, int | float | bool]:
        """Scalar values as Python numbers, for evaluating launch expressions."""
        return {p.name: _item(self.values[p.name]) for p in self.function.params
                if not p.is_array}

    def host_arrays(self) -> dict[str, np.ndarray]:
        """The arrays by parameter name, each in host memory (raises for a device array)."""
        return {a.param.name: a.host for a in self.arrays()}

    def scratch_elements(self) -> dict[str, int]:
        """The elements of each scratch buffer of the call (its expression evaluated on the
        scalar arguments, as launch sizes are)."""
        scalars = {p.name: self.values[p.name] for p in self.function.params if not p.is_array}
        sizes: dict[str, int] = {}
        for scratch in self.function.scratch:
            where = f"scratch '{scratch.name}' of '{self.function.name}'"
            try:
                sizes[scratch.name] = evaluate(scratch.elements, scalars)
            except ValueError as e:
                raise KernelLaunchError(f"{where}: {e}") from None
            if sizes[scratch.name] < 0:
                raise KernelLaunchError(f"{where}: {scratch.elements} is {sizes[scratch.name]} "
                                        "elements")  # fmt: skip
        return sizes

    def arrays(self) -> list[ArrayArgument]:
        arrays: list[ArrayArgument] = []
        for p in self.function.params:
            if p.is_array:
                argument = self.values[p.name]
                assert isinstance(argument, ArrayArgument)  # as _bind_array made it
                arrays.append(argument)
        return arrays


# --------------------------------------------------------------------------------------------
# The launch description
# --------------------------------------------------------------------------------------------
def _field(entry: object, key: str, where: str) -> Any:  # JSON, checked here
    if not is_mapping(entry) or key not in entry:
        raise LaunchDescriptionError(f"invalid launch description: {where} has no '{key}'")
    return entry[key]


def _dims(value: Any, where: str) -> tuple[str, str, str]:
    if not is_sequence(value) or not 1 <= len(value) <= 3:
        raise LaunchDescriptionError(
            f"invalid launch description: {where} must be a list of 1 to 3 expressions"
        )
    dims = [str(v) for v in value] + ["1"] * (3 - len(value))
    return (dims[0], dims[1], dims[2])


def _param(entry: Mapping[str, Any], where: str) -> Param:
    name = str(_field(entry, "name", where))
    kind = _field(entry, "kind", f"{where} '{name}'")
    if kind not in ("array", "scalar"):
        raise LaunchDescriptionError(
            f"invalid launch description: parameter '{name}' has kind {kind!r}"
            " (expected 'array' or 'scalar')"
        )
    try:
        dtype = np.dtype(_field(entry, "dtype", f"parameter '{name}'"))
    except TypeError as e:
        raise LaunchDescriptionError(
            f"invalid launch description: parameter '{name}' has an unknown dtype: {e}"
        ) from None
    extents = entry.get("extents")
    map_type = str(entry.get("map", "tofrom"))
    if map_type not in MAP_TYPES:
        raise LaunchDescriptionError(
            f"invalid launch description: parameter '{name}' has map {map_type!r} (expected one"
            f" of {', '.join(MAP_TYPES)})"
        )
    return Param(
        name=name,
        kind=kind,
        dtype=dtype,
        ctype=str(entry.get("ctype", dtype.name)),
        const=bool(entry.get("const", False)),
        restrict=bool(entry.get("restrict", False)),
        extents=None if extents is None else tuple(extents),
        map=map_type,
    )


#: OpenMP's map types (docs/ir.md, "Data mapping").
MAP_TYPES = ("tofrom", "to", "from", "alloc")


def parse_launch_description(launch: Mapping[str, Any]) -> dict[str, Function]:
    """The functions of a launch description (docs/ir.md), by name, checked for shape."""
    functions: dict[str, Function] = {}
    for f in _field(launch, "functions", "the launch description"):
        name = str(_field(f, "name", "a function"))
        params = tuple(_param(p, f"a parameter of '{name}'") for p in _field(f, "params", name))
        names = {p.name for p in params}
        if len(names) != len(params):
            raise LaunchDescriptionError(
                f"invalid launch description: '{name}' has duplicate parameter names"
            )
        steps = steps_of(f)
        try:
            check_steps(steps, len(_field(f, "launches", name)), set(names))
        except ValueError as e:
            raise LaunchDescriptionError(f"invalid launch description: '{name}': {e}") from None
        loop_counters = tuple(
            Param(var, "scalar", np.dtype(C_TYPES[ctype].dtype), ctype)
            for var, ctype in counters(steps).items()
        )
        names |= {p.name for p in loop_counters}
        scratch = _scratch(f.get("scratch", []), name, names)
        names |= {s.name for s in scratch}
        launches: list[LaunchEntry] = []
        for i, entry in enumerate(_field(f, "launches", name)):
            where = f"launch {i} of '{name}'"
            args = tuple(str(a) for a in _field(entry, "args", where))
            for a in args:
                if a not in names:
                    raise LaunchDescriptionError(
                        f"invalid launch description: {where} passes '{a}', which is not a"
                        f" parameter of '{name}' nor a loop counter of its steps"
                    )
            launches.append(
                LaunchEntry(
                    kernel=str(_field(entry, "kernel", where)),
                    grid=_dims(_field(entry, "grid", where), f"the grid of {where}"),
                    block=_dims(_field(entry, "block", where), f"the block of {where}"),
                    args=args,
                    dynamic_shared_bytes=str(entry.get("dynamic_shared_bytes", "0")),
                    part_nest=_part_nest(entry.get("part_nest"), where),
                    launch_bounds=_launch_bounds(entry.get("launch_bounds"), where),
                )
            )
        parts = None
        if "parts" in f:
            parts = parse_parts(f["parts"], name)
            if scratch:
                raise LaunchDescriptionError(f"invalid launch description: '{name}' runs in "
                                             "parts (out of core) and has scratch buffers")
        functions[name] = Function(
            name, params, tuple(launches), _requires(f, name, params), tuple(steps),
            loop_counters, parts, scratch,
        )
    return functions


def _requires(
    entry: Mapping[str, Any], name: str, params: tuple[Param, ...]
) -> tuple[tuple[str, int], ...]:
    """The `requires` entry (agpu-specialize): integer values of scalar parameters."""
    requires: Any = entry.get("requires") or {}
    if not is_mapping(requires):
        raise LaunchDescriptionError(
            f"invalid launch description: 'requires' of '{name}' must map parameters to integers"
        )
    scalars = {p.name for p in params if not p.is_array}
    for param, value in requires.items():
        if param not in scalars or isinstance(value, bool) or not isinstance(value, int):
            raise LaunchDescriptionError(
                f"invalid launch description: '{name}' requires {param} = {value!r}, but only "
                "integer values of its scalar parameters can be required"
            )
    return tuple(requires.items())


def kernel_names(functions: Mapping[str, Function]) -> list[str]:
    """Every kernel some function launches, each once, in order of first use."""
    seen: dict[str, None] = {}
    for f in functions.values():
        for entry in f.launches:
            seen.setdefault(entry.kernel, None)
    return list(seen)


def find_function(functions: Mapping[str, Function], name: str) -> Function:
    if name not in functions:
        known = ", ".join(sorted(functions)) or "none"
        raise KernelArgumentError(f"no function '{name}' in this program (it has: {known})")
    return functions[name]


def _part_nest(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise LaunchDescriptionError(f"invalid launch description: 'part_nest' of {where} must "
                                     "be a nest index")
    return value


def _scratch(value: Any, function: str, taken: set[str]) -> tuple[Scratch, ...]:
    where = f"invalid launch description: a scratch of '{function}'"
    if not is_list(value):
        raise LaunchDescriptionError(f"{where} list must be a list")
    scratch: list[Scratch] = []
    for entry in value:
        name = str(_field(entry, "name", where))
        if name in taken or any(s.name == name for s in scratch):
            raise LaunchDescriptionError(f"{where} is named '{name}', as another argument")
        try:
            dtype = np.dtype(_field(entry, "dtype", f"{where} '{name}'"))
        except TypeError as e:
            raise LaunchDescriptionError(f"{where} '{name}' has an unknown dtype: {e}") from None
        scratch.append(Scratch(name, dtype, str(_field(entry, "elements", f"{where} '{name}'"))))
    return tuple(scratch)


def _launch_bounds(value: Any, where: str) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    if not is_mapping(value) or not all(
        clause in ("num_teams", "thread_limit") and is_list(exprs)
        for clause, exprs in value.items()
    ):
        raise LaunchDescriptionError(f"invalid launch description: 'launch_bounds' of {where} "
                                     "must map num_teams/thread_limit to lists of expressions")
    bounds: dict[str, list[Any]] = dict(value)
    return tuple((clause, str(e)) for clause, exprs in bounds.items() for e in exprs)


# --------------------------------------------------------------------------------------------
# Launch configurations
# --------------------------------------------------------------------------------------------
def launch_trace(call: BoundCall) -> list[Launch]:
    """The launches the call runs, in order: the function's host program run on its scalar
    arguments (loops and ifs need no device data), each launch's configuration evaluated and
    checked (by `autogpu.target.launch`, the cuda target's own reading of the expressions).
    A program that reads device data has no trace ahead of running (KernelLaunchError): its
    executors go through `launches` with a reader."""
    if call.function.reads_device:
        raise KernelLaunchError(
            f"the host program of '{call.function.name}' reads values the kernels compute: "
            "its launches are known only as it runs")
    return list(launches(call))


def launches(call: BoundCall, read: Reader | None = None) -> Iterator[Launch]:
    """The launches the call runs, each yielded before the host program goes on (a `read`
    step after it, through `read`, sees what the caller launched)."""
    # NumPy scalars of the C types: a uint64 is `unsigned long long` to the evaluator
    scalars = {p.name: call.values[p.name] for p in call.function.params if not p.is_array}
    names = {p.name for p in (*call.function.params, *(s.param for s in call.function.scratch))}
    steps = call.function.steps or [{"launch": i} for i in range(len(call.function.launches))]
    program = iterate_steps(steps, scalars, read)
    while True:
        try:
            index, env = next(program)
        except StopIteration:
            return
        except ValueError as e:  # a loop bound or condition that cannot be evaluated
            raise KernelLaunchError(f"the host program of '{call.function.name}': {e}") \
                from None
        entry = call.function.launches[index]
        config = LaunchConfig(*_evaluate_launch(entry, env))
        check_launch_config(entry.kernel, config)
        check_launch_bounds(entry, config, env)
        counters = {k: v for k, v in env.items() if k not in names}
        for arg in entry.args:
            if arg not in names and arg not in counters:
                raise KernelLaunchError(
                    f"launch of '{entry.kernel}' passes '{arg}' outside the loop that defines it"
                )
        yield Launch(entry, config, counters)


def _evaluate_launch(entry: LaunchEntry, scalars: Mapping[str, Any]) -> tuple[Any, Any, int]:
    description = {
        "kernel": entry.kernel,
        "grid": list(entry.grid),
        "block": list(entry.block),
        "dynamic_shared_bytes": entry.dynamic_shared_bytes,
    }
    try:
        return launch_config(description, scalars)
    except ValueError as e:  # e.g. a division by a zero argument, a name that is no parameter
        raise KernelLaunchError(f"launch of '{entry.kernel}': {e}") from None


def check_launch_config(kernel: str, config: LaunchConfig) -> None:
    """CUDA's limits; an empty grid (an extent <= 0) is allowed: the launch is skipped."""
    where = f"launch of '{kernel}' with grid {config.grid}, block {config.block}"
    if any(b < 1 or b > m for b, m in zip(config.block, MAX_BLOCK)):
        raise KernelLaunchError(f"{where}: block extents must be within 1..{MAX_BLOCK}")
    threads = config.block[0] * config.block[1] * config.block[2]
    if threads > MAX_THREADS_PER_BLOCK:
        raise KernelLaunchError(
            f"{where}: {threads} threads per block (at most {MAX_THREADS_PER_BLOCK})"
        )
    if any(g > m for g, m in zip(config.grid, MAX_GRID)):
        raise KernelLaunchError(f"{where}: grid extents must be at most {MAX_GRID}")
    if config.dynamic_shared_bytes < 0:
        raise KernelLaunchError(
            f"{where}: negative dynamic shared memory ({config.dynamic_shared_bytes} bytes)"
        )


def check_launch_bounds(entry: LaunchEntry, config: LaunchConfig,
                        scalars: Mapping[str, Any]) -> None:  # fmt: skip
    """OpenMP's `num_teams(e)` and `thread_limit(e)` (frontend/launch_bounds.py) must be
    positive, and a team (a block) holds at most `thread_limit(e)` threads: a kernel compiled
    for a larger block cannot honour the clause, so the call is refused before anything runs."""
    threads = config.block[0] * config.block[1] * config.block[2]
    for clause, expr in entry.launch_bounds:
        try:
            value = evaluate(expr, scalars)
        except ValueError as e:
            raise KernelLaunchError(f"launch of '{entry.kernel}': {clause}{_paren(expr)}: {e}"
                                    ) from None  # fmt: skip
        text = f"launch of '{entry.kernel}': {clause}{_paren(expr)} is {value}"
        if value <= 0:
            raise KernelLaunchError(f"{text}, but OpenMP requires a positive value")
        if clause == "thread_limit" and threads > value:
            raise KernelLaunchError(
                f"{text}, but the kernel was compiled for blocks of {threads} threads: compile "
                f"with a block of at most {value} threads (or tune it for these sizes)"
            )


def _paren(expr: str) -> str:
    return expr if expr.startswith("(") and expr.endswith(")") else f"({expr})"


# --------------------------------------------------------------------------------------------
# Binding arguments
# --------------------------------------------------------------------------------------------
def call_arguments(
    args: Sequence[Any], named: Mapping[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The executors' `run` takes the arguments spread, `run(name, x, y, n=3)`, or as a sequence
    and a mapping, `run(name, (x, y), {"n": 3})`. The forms cannot be confused: a kernel
    argument is never a list, tuple or dict."""
    if (
        not named
        and 1 <= len(args) <= 2
        and is_sequence(args[0])
        and (len(args) == 1 or is_mapping(args[1]))
    ):
        return tuple(args[0]), dict(args[1]) if len(args) == 2 else {}
    return tuple(args), dict(named)


def given_arguments(function: Function, args: Sequence[Any], named: Mapping[str, Any]
                    ) -> dict[str, Any]:
    """The caller's value of each parameter, by name (missing, extra or doubled ones refused)."""
    params = function.params
    sig = f"{function.name}({', '.join(p.name for p in params)})"
    if len(args) > len(params):
        raise KernelArgumentError(
            f"{sig} takes {len(params)} arguments, {len(args)} positional ones were given"
        )
    given: dict[str, Any] = {p.name: a for p, a in zip(params, args)}
    for name, value in named.items():
        if name in given:
            raise KernelArgumentError(f"{sig}: argument '{name}' given twice")
        if not any(p.name == name for p in params):
            raise KernelArgumentError(f"{sig} has no parameter '{name}'")
        given[name] = value
    missing = [p.name for p in params if p.name not in given]
    if missing:
        raise KernelArgumentError(f"{sig}: missing argument(s) {', '.join(missing)}")
    return given


def array_values(function: Function, args: Sequence[Any], named: Mapping[str, Any]
                 ) -> list[Any]:
    """The caller's objects given for the array parameters, in parameter order, unchecked (to
    choose the caller's stream before the arrays are bound on it: `caller_stream.py`)."""
    given = given_arguments(function, args, named)
    return [given[p.name] for p in function.params if p.is_array]


def bind_arguments(function: Function, args: Sequence[Any], named: Mapping[str, Any],
                   *, consumer_stream: int = LEGACY_STREAM) -> BoundCall:
    """Checks positional and named arguments against the function's parameters: every check
    happens before any kernel runs, and the error names the parameter. DLPack producers are
    asked for their tensors on `consumer_stream`, the stream the kernels will run on."""
    params = function.params
    given = given_arguments(function, args, named)
    # scalars first: extents refer to them
    scalars = {p.name: _bind_scalar(function, p, given[p.name]) for p in params if not p.is_array}
    values: dict[str, ArrayArgument | np.generic] = dict(scalars)
    for p in params:
        if p.is_array:
            values[p.name] = _bind_array(function, p, given[p.name], scalars, consumer_stream)
    if function.requires:
        numbers = {name: value.item() for name, value in scalars.items()}
        if (why := violation(function.name, dict(function.requires), numbers)) is not None:
            raise KernelArgumentError(why)
    _check_overlaps(function, values)
    return BoundCall(function, values)


def bind_scalars(function: Function, scalars: Mapping[str, Any]) -> dict[str, np.generic]:
    """The scalar parameters among `scalars`, each checked and converted to its C type (a NumPy
    scalar: a `uint64` is `unsigned long long` to the launch evaluator even below 2^63)."""
    by_name = {p.name: p for p in function.params}
    bound: dict[str, np.generic] = {}
    for name, value in scalars.items():
        p = by_name.get(name)
        if p is None or p.is_array:
            what = "no parameter" if p is None else "an array parameter, not a size"
            raise KernelArgumentError(f"{function.name}() has {what} '{name}'")
        bound[name] = _bind_scalar(function, p, value)
    return bound


def _where(function: Function, p: Param) -> str:
    return f"argument '{p.name}' of {function.name}()"


def _bind_scalar(function: Function, p: Param, value: Any) -> np.generic:
    where = _where(function, p)
    if is_ndarray(value) and value.ndim == 0:
        value = value[()]
    if is_ndarray(value) or is_sequence(value) or is_array(value):
        raise KernelArgumentError(f"{where} is a scalar {p.describe()}, got {type(value).__name__}")
    kind = p.dtype.kind
    if kind == "b":
        if is_boolean(value) or (
            is_integer(value) and value in (0, 1)
        ):
            return np.bool_(bool(value))
        raise KernelArgumentError(f"{where} expects {p.describe()}, got {value!r}")
    if kind in "iu":
        if not (is_integer(value) or is_boolean(value)):
            raise KernelArgumentError(
                f"{where} expects an integer, {p.describe()}, got {type(value).__name__} {value!r}"
            )
        info = np.iinfo(p.dtype)
        if not info.min <= int(value) <= info.max:
            raise KernelArgumentError(
                f"{where} = {int(value)} is out of range for {p.describe()}:"
                f" {info.min}..{info.max}"
            )
        return p.dtype.type(int(value))
    if kind == "f":
        if is_boolean(value) or not is_number(value):
            raise KernelArgumentError(
                f"{where} expects a number, {p.describe()}, got {type(value).__name__} {value!r}"
            )
        with np.errstate(over="ignore"):
            converted = p.dtype.type(value)
        if np.isinf(converted) and np.isfinite(value):
            raise KernelArgumentError(f"{where} = {value!r} is out of range for {p.describe()}")
        return converted
    raise LaunchDescriptionError(f"parameter '{p.name}' has unsupported dtype {p.dtype}")


def _item(value: ArrayArgument | np.generic) -> Any:
    """A bound scalar as a Python number."""
    assert isinstance(value, np.generic)  # scalars are bound as NumPy scalars
    return value.item()


def _bind_array(
    function: Function, p: Param, value: Any, scalars: Mapping[str, np.ndarray | np.generic],
    consumer_stream: int = LEGACY_STREAM,
) -> ArrayArgument:
    """Checks an array of any kind (NumPy or a device array) through its view: the same rules
    hold for all, each error naming the parameter."""
    where = _where(function, p)
    try:
        view = array_view(value, consumer_stream)
    except ArrayInterfaceError as e:
        raise KernelArgumentError(f"{where} cannot be used: {e}") from None
    if view is None:
        raise KernelArgumentError(
            f"{where} expects a NumPy {p.describe()} (on the GPU also a CuPy array, a PyTorch"
            f" CUDA tensor or any __cuda_array_interface__ or DLPack object), got"
            f" {type(value).__name__}"
        )
    if view.location == "host" and not isinstance(value, np.ndarray):
        raise KernelArgumentError(
            f"{where} is a {view.kind} array in host memory: pass a NumPy array (np.from_dlpack"
            "(x) shares its memory), whose outputs the executors can write"
        )
    if view.dtype != p.dtype:
        creation = f"dtype=np.{p.dtype.name}" if isinstance(value, np.ndarray) else \
            f"the element type {p.dtype.name}"
        raise KernelArgumentError(
            f"{where} expects a {p.describe()}, got dtype {view.dtype}; arrays are not converted"
            f" (a converted copy would receive the outputs): pass an array created with"
            f" {creation}"
        )
    if not view.c_contiguous:
        hint = "np.ascontiguousarray(...)" if isinstance(value, np.ndarray) else \
            "a C-contiguous copy (x.copy(), x.contiguous())"
        raise KernelArgumentError(
            f"{where} is not C-contiguous (a strided view or Fortran order); the kernel indexes it"
            f" as one flat array: pass {hint} and read results from that"
        )
    if not view.aligned:
        raise KernelArgumentError(f"{where} is not aligned for {p.dtype.name}")
    if not p.const and view.readonly:
        raise KernelArgumentError(f"{where} is read-only, but the kernel may write it")
    needed = _required_elements(function, p, scalars)
    if needed is not None and view.size < needed:
        extents = "][".join(str(e) for e in p.extents or ())
        raise KernelArgumentError(
            f"{where} has {view.size} elements, but {p.ctype} {p.name}[{extents}]"
            f" needs {needed}"
        )
    return array_argument(p, value, view)


def _required_elements(
    function: Function, p: Param, scalars: Mapping[str, np.ndarray | np.generic]
) -> int | None:
    """Elements a C99 array parameter needs (None when unknowable: a plain pointer, or an
    extent that is not given, like the first one of `float A[][n]`)."""
    if not p.extents:
        return None
    total = 1
    for extent in p.extents:
        if extent is None or extent in ("", LEFT_OUT):
            return None
        numbers = {k: v.item() for k, v in scalars.items() if isinstance(v, np.generic)}
        try:
            value = evaluate(str(extent), numbers)
        except ValueError as e:
            raise LaunchDescriptionError(f"extent of parameter '{p.name}': {e}") from None
        if value < 0:
            raise KernelArgumentError(
                f"{_where(function, p)}: extent '{extent}' of {p.name} is negative ({value})"
            )
        total *= value
    return total


def _check_overlaps(function: Function, values: Mapping[str, Any]) -> None:
    """Arrays that overlap in memory where one of them is written: the GPU executor copies each
    host array to its own device buffer, so such aliasing cannot behave as in C; both executors
    reject it so that they agree (device arrays too, whose kernels would race)."""
    arrays = [values[p.name] for p in function.params if p.is_array]
    for i, a in enumerate(arrays):
        for b in arrays[i + 1 :]:
            if (a.param.const and b.param.const) or a.view.nbytes == 0 or b.view.nbytes == 0:
                continue
            if a.view.location == b.view.location and _ranges_meet(a.view, b.view):
                raise KernelArgumentError(
                    f"arguments '{a.param.name}' and '{b.param.name}' of {function.name}() overlap"
                    " in memory and one of them may be written; pass distinct arrays"
                )


def _ranges_meet(a: Any, b: Any) -> bool:
    """Whether the byte ranges of two (contiguous) views intersect."""
    return a.pointer < b.pointer + b.nbytes and b.pointer < a.pointer + a.nbytes


def check_requirements(function: Mapping[str, Any], scalars: Mapping[str, Any]) -> None:
    """Refuses a call whose scalar arguments differ from the values the function's kernels were
    specialised for (`function` is one entry of the launch description's `functions`)."""
    why = violation(function.get("name", "?"), function.get("requires") or {}, scalars)
    if why is not None:
        raise KernelArgumentError(why)
