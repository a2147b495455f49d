"""The search space: tunable pass options, their candidate values, and restrictions.

A space is built from the pipeline: every option of every pass can be tuned. Values come, in
order of precedence, from the user (space file, `--set`, the API), from the option's own
declaration (its tuning values, `autogpu/passes/options.py`), and otherwise the option stays at
its default. Values are lists or generator expressions over the sizes (`pow2(32, 512)`,
`seq(1, 8)`, `divisors(n)`, ...), see `GENERATORS`. What an option means (the threads of a block
along y, a parallel unroll factor) comes from its declared role, never from its name.

Restrictions are checked before anything is compiled. Each is an expression (see `expr.py`) or
a Python callable over one configuration: the parameters, the sizes, and the device limits
`max_threads` and `max_shared`. Enumeration checks a restriction as soon as all the names it
reads are bound, so large products with tight restrictions stay cheap.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autogpu.diagnostics import CompileError
from autogpu.narrowing import is_dict, is_list, is_sequence, is_tuple
from autogpu.passes.options import SHARED_LIMIT, THREADS, Role, roles
from autogpu.target.cuda_limits import MAX_THREADS_PER_BLOCK, SHARED_BYTES_PER_BLOCK
from autogpu.tuner import adapter, expr
from autogpu.tuner.adapter import OptionInfo, PassSpec

# --- value generators ------------------------------------------------------------------------

#: The most candidate values one parameter may have (a generator's or a list's), and the most
#: configurations a space may have (the product of its parameters' value counts). Both are
#: checked before anything is materialised: `seq(1, 10**9)` would exhaust the memory, and a space
#: this large could not be tuned anyway.
MAX_VALUES = expr.MAX_LENGTH
MAX_CONFIGURATIONS = 100_000
#: The most candidates `divisors` tests (a few tenths of a second): any n up to 2**44.
MAX_DIVISOR_CANDIDATES = 1 << 22


def _bounded(values: range, call: str) -> list[int]:
    """`values` as a list, unless it is longer than MAX_VALUES (its length costs nothing)."""
    if len(values) > MAX_VALUES:
        raise ValueError(f"{call} has {len(values)} values, more than the limit of "
                         f"{MAX_VALUES}: narrow the range or take a larger step")
    return list(values)


def pow2(lo: int, hi: int) -> list[int]:
    """Powers of two in [lo, hi]."""
    lo, hi = int(lo), int(hi)
    return [1 << k for k in range(0, 63) if lo <= (1 << k) <= hi]


def seq(lo: int, hi: int, step: int = 1) -> list[int]:
    """lo, lo+step, ... up to and including hi."""
    lo, hi, step = int(lo), int(hi), int(step)
    if step <= 0:
        raise ValueError("seq step must be positive")
    return _bounded(range(lo, hi + 1, step), f"seq({lo}, {hi}, {step})")


def divisors(n: int, lo: int = 1, hi: int | None = None) -> list[int]:
    """Divisors of n in [lo, hi]: each d <= sqrt(n) in [lo, hi], and n // d for each d <= sqrt(n)
    whose co-divisor lies in [lo, hi], so `divisors(2**62, 1, 64)` tests 64 numbers."""
    n = int(n)
    if n <= 0:
        raise ValueError(f"divisors of {n}: expected a positive size")
    lo, hi = max(int(lo), 1), n if hi is None else min(int(hi), n)
    if hi < lo:
        return []
    root = math.isqrt(n)
    # d itself in [lo, hi], or n // d in [lo, hi], for d <= sqrt(n)
    tested = _union(range(lo, min(hi, root) + 1), range(-(-n // hi), min(root, n // lo) + 1))
    if sum(map(len, tested)) > MAX_DIVISOR_CANDIDATES:
        raise ValueError(f"divisors({n}, {lo}, {hi}) would test {sum(map(len, tested))} "
                         f"candidates, more than the limit of {MAX_DIVISOR_CANDIDATES}: narrow "
                         f"[lo, hi], e.g. divisors(n, 1, 1024)")
    found = {x for r in tested for d in r if n % d == 0 for x in (d, n // d)}
    return sorted(d for d in found if lo <= d <= hi)


def _union(a: range, b: range) -> list[range]:
    """The numbers of two ranges of step 1, as disjoint ranges."""
    if not a or not b:
        return [r for r in (a, b) if r]
    if max(a.start, b.start) <= min(a.stop, b.stop):
        return [range(min(a.start, b.start), max(a.stop, b.stop))]
    return [a, b]


def multiples(k: int, lo: int, hi: int) -> list[int]:
    """Multiples of k in [lo, hi]."""
    k, lo, hi = int(k), int(lo), int(hi)
    if k <= 0:
        raise ValueError(f"multiples of {k}: expected a positive number")
    first = max(-(-lo // k) * k, k)
    return _bounded(range(first, hi + 1, k), f"multiples({k}, {lo}, {hi})")


def _range(*args: int) -> list[int]:
    if len(args) > 3 or not args:
        raise ValueError("range takes 1 to 3 arguments")
    r = range(*(int(a) for a in args))
    return _bounded(r, f"range({', '.join(str(int(a)) for a in args)})")


GENERATORS: dict[str, Callable[..., list[int]]] = {
    "pow2": pow2,
    "seq": seq,
    "range": _range,
    "divisors": divisors,
    "multiples": multiples,
}

# --- defaults ----------------------------------------------------------------------------------

DEFAULT_MAX_THREADS = MAX_THREADS_PER_BLOCK
DEFAULT_MAX_SHARED = SHARED_BYTES_PER_BLOCK


def declared_roles(pass_name: str) -> dict[str, Role]:
    """The roles the options of pass `pass_name` declare; none for a name autogpu does not
    register (a pass a caller describes itself)."""
    try:
        return roles(adapter.pass_class(pass_name))
    except CompileError:
        return {}


# --- parameters and restrictions -----------------------------------------------------------


@dataclass(frozen=True)
class Parameter:
    """A tunable value: one option of one pass (or one component of a tuple option)."""

    name: str  # how restrictions, space files and reports name it
    pass_name: str
    option: str
    values: tuple[Any, ...]
    index: int | None = None  # component of a tuple-valued option
    default: Any = None
    role: Role | None = None  # what the option means (threads along y, ...), as declared

    @property
    def is_block_dimension(self) -> bool:
        return self.role is not None and self.role.quantity == THREADS


@dataclass(frozen=True)
class Restriction:
    """A predicate on a configuration; `names` lets enumeration check it early (None: only
    once every parameter is bound)."""

    description: str
    check: Callable[[Mapping[str, Any]], Any]
    names: frozenset[str] | None = None

    @staticmethod
    def from_expression(text: str) -> Restriction:
        parsed = expr.parse(text, GENERATORS)
        return Restriction(parsed.text, lambda env, e=parsed: e(env, GENERATORS), parsed.names)

    @staticmethod
    def from_callable(fn: Callable[[Mapping[str, Any]], Any]) -> Restriction:
        name = getattr(fn, "__name__", "callable")
        return Restriction(f"{name}(...)", fn, None)

    def __call__(self, env: Mapping[str, Any]) -> bool:
        return bool(self.check(env))


def as_restriction(r: str | Callable[[Mapping[str, Any]], Any] | Restriction) -> Restriction:
    if isinstance(r, Restriction):
        return r
    if isinstance(r, str):
        return Restriction.from_expression(r)
    if callable(r):
        return Restriction.from_callable(r)
    raise CompileError(f"a restriction must be an expression or a callable, not {r!r}")


def threads_restrictions(params: Sequence[Parameter]) -> list[Restriction]:
    """Per pass: threads per block (the product of its block-dimension parameters) <=
    max_threads."""
    by_pass: dict[str, list[str]] = {}
    for p in params:
        if p.is_block_dimension:
            by_pass.setdefault(p.pass_name, []).append(p.name)
    restrictions: list[Restriction] = []
    for dims in by_pass.values():
        def check(env: Mapping[str, Any], dims: list[str] = dims) -> bool:
            return math.prod(_threads(env[d]) for d in dims) <= env["max_threads"]

        text = f"{' * '.join(dims)} <= max_threads"
        restrictions.append(Restriction(f"threads per block: {text}", check,
                                        frozenset(dims) | {"max_threads"}))
    return restrictions


def _threads(value: Any) -> int:
    return math.prod(value) if is_sequence(value) else int(value)


# --- the space -------------------------------------------------------------------------------


@dataclass
class Space:
    """Parameters, restrictions, and the environment (sizes, limits) they are evaluated in."""

    parameters: list[Parameter]
    restrictions: list[Restriction] = field(default_factory=list[Restriction])
    environment: dict[str, Any] = field(default_factory=dict[str, Any])
    base_pipeline: list[PassSpec] = field(default_factory=list[PassSpec])
    fixed: dict[str, Any] = field(default_factory=dict[str, Any])  # untuned options, for the record
    device_shared: list[tuple[str, str]] = field(default_factory=list[tuple[str, str]])
    """(pass, option) of the shared-memory budgets set to `max_shared` (`device_shared` role)."""

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.parameters]

    @property
    def product_size(self) -> int:
        return math.prod(len(p.values) for p in self.parameters)

    def parameter(self, name: str) -> Parameter:
        for p in self.parameters:
            if p.name == name:
                return p
        raise KeyError(name)

    def rejects(self, config: Mapping[str, Any]) -> str | None:
        """The first restriction `config` violates, quoted, with the other values it reads
        (fixed options, sizes): `'unroll_x * unroll_y <= 32' (with unroll_x=64)`; or None."""
        env = {**self.environment, **config}
        for r in self.restrictions:
            try:
                if not r(env):
                    others = sorted((r.names or frozenset()) - set(config))
                    given = ", ".join(f"{n}={env[n]}" for n in others if n in env)
                    return f"'{r.description}'" + (f" (with {given})" if given else "")
            except CompileError as e:
                raise CompileError(f"restriction '{r.description}': {e.message}") from None
        return None

    def enumerate(self) -> list[dict[str, Any]]:
        """Every configuration that satisfies the restrictions, in lexicographic order of the
        parameters' value lists (the exhaustive strategy's order)."""
        return list(self._walk())

    def _walk(self) -> Iterator[dict[str, Any]]:
        names = self.names
        # Check each restriction at the first depth where every name it reads is bound.
        env_names = set(self.environment)
        at_depth: list[list[Restriction]] = [[] for _ in range(len(names) + 1)]
        for r in self.restrictions:
            if r.names is None:
                at_depth[len(names)].append(r)
                continue
            unknown = r.names - env_names - set(names)
            if unknown:
                raise CompileError(
                    f"restriction '{r.description}' names {', '.join(sorted(unknown))}, which "
                    f"is neither a parameter ({', '.join(names) or 'none'}) nor a size or limit "
                    f"({', '.join(sorted(env_names))})"
                )
            depth = max((names.index(n) + 1 for n in r.names if n in names), default=0)
            at_depth[depth].append(r)
        env = dict(self.environment)
        for r in at_depth[0]:
            if not self._holds(r, env):
                return

        def walk(depth: int) -> Iterator[dict[str, Any]]:
            if depth == len(names):
                yield {n: env[n] for n in names}
                return
            for value in self.parameters[depth].values:
                env[names[depth]] = value
                if all(self._holds(r, env) for r in at_depth[depth + 1]):
                    yield from walk(depth + 1)
            env.pop(names[depth], None)

        yield from walk(0)

    @staticmethod
    def _holds(r: Restriction, env: Mapping[str, Any]) -> bool:
        try:
            return r(env)
        except CompileError as e:
            raise CompileError(f"restriction '{r.description}': {e.message}") from None

    def pipeline(self, config: Mapping[str, Any]) -> list[PassSpec]:
        """The pipeline with `config`'s values filled into each pass's options."""
        passes = [PassSpec(p.name, dict(p.options)) for p in self.base_pipeline]
        by_pass = {p.name: p for p in passes}
        tuples: dict[tuple[str, str], dict[int, Any]] = {}
        for param in self.parameters:
            value = config[param.name]
            target = by_pass[param.pass_name]
            if param.index is None:
                target.options[param.option] = _as_tuple(value)
            else:
                tuples.setdefault((param.pass_name, param.option), {})[param.index] = value
        for (pass_name, option), parts in tuples.items():
            by_pass[pass_name].options[option] = tuple(parts[i] for i in sorted(parts))
        limit = self.environment.get("max_shared", DEFAULT_MAX_SHARED)
        if limit != DEFAULT_MAX_SHARED:  # a device's opt-in maximum, or the user's
            for pass_name, option in self.device_shared:
                by_pass[pass_name].options[option] = (limit,)
        return passes

    def describe(self) -> dict[str, Any]:
        """A JSON-friendly description of the space (for reports and `--list-space`)."""
        return {
            "parameters": {p.name: {"pass": p.pass_name, "option": p.option,
                                    "values": list(p.values)} for p in self.parameters},
            "restrictions": [r.description for r in self.restrictions],
            "fixed": self.fixed,
            "product": self.product_size,
        }


def _as_tuple(value: Any) -> tuple[Any, ...]:
    return tuple(value) if is_sequence(value) else (value,)


# --- building a space from a pipeline ------------------------------------------------------


def resolve_values(spec: Any, environment: Mapping[str, Any], what: str) -> tuple[Any, ...]:
    """A value list from a space entry: a list/tuple, a scalar, or a generator expression."""
    if isinstance(spec, str):
        if spec.strip().lower() in ("true", "false"):
            return (spec.strip().lower() == "true",)
        try:
            value = expr.evaluate(expr.parse(spec, GENERATORS), environment, GENERATORS)
        except CompileError as e:
            raise CompileError(f"values of {what}: {e.message}") from None
    else:
        value = spec
    if not (is_sequence(value) or isinstance(value, range)):
        value = [value]
    if len(value) > MAX_VALUES:
        raise CompileError(f"{what} has {len(value)} candidate values, more than the limit of "
                           f"{MAX_VALUES}: give fewer")
    values: dict[Any, None] = {}  # in order, without repeats
    for v in value:
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        if is_list(v):
            v = tuple(v)
        try:
            values[v] = None
        except TypeError:
            raise CompileError(f"{what}: {v!r} is not a number, a boolean, a string or a "
                               "list of them") from None
    if not values:
        raise CompileError(f"{what} has no candidate values ({spec!r} is empty)")
    return tuple(values)


def widest_element(params: Sequence[Any]) -> int:
    """Bytes of the widest element of the array parameters (4 without any): restrictions on
    shared memory (tiles doubled by `stages`) read it as `element_bytes`."""
    import numpy as np

    return max((np.dtype(p.dtype).itemsize for p in params if p.kind == "array"), default=4)


def build_space(
    base_pipeline: list[PassSpec],
    options: Mapping[str, list[OptionInfo]],
    environment: Mapping[str, Any],
    *,
    overrides: Mapping[str, Any] | None = None,
    restrictions: Sequence[str | Callable[[Mapping[str, Any]], Any] | Restriction] = (),
    pass_restrictions: Mapping[str, Sequence[str]] | None = None,
    parallel_dims: int = 1,
    use_defaults: bool = True,
    roles: Mapping[str, Mapping[str, Role]] | None = None,
) -> Space:
    """The space of `base_pipeline`: `options[pass]` lists each pass's options, `roles[pass]`
    their declared roles (by default, those the registered passes declare).

    Options written in the pipeline string are fixed. `overrides` maps a parameter name
    (`option`, `pass.option`, or `option_i` for a component of a tuple option) to values.
    Restrictions read an option that is not tuned as its fixed (or default) value; a pass's
    restriction that reads no tuned option is dropped: it would only overrule the user's values.
    """
    overrides = dict(overrides or {})
    env = dict(environment)
    env.setdefault("max_threads", DEFAULT_MAX_THREADS)
    env.setdefault("max_shared", DEFAULT_MAX_SHARED)
    env.setdefault("parallel_dims", parallel_dims)
    env.setdefault("array_reductions", 0)  # the kernel's array reductions (prepared.py)
    env.setdefault("scalar_reductions", 0)  # the kernel's scalar reductions (prepared.py)
    env.setdefault("split_accumulations", 0)  # its loops split_walkers may split (prepared.py)
    env.setdefault("element_bytes", 4)  # the widest array element (prepared.py)
    counts: dict[str, int] = {}
    for p in base_pipeline:
        for o in options.get(p.name, []):
            counts[o.name] = counts.get(o.name, 0) + 1

    if roles is None:
        roles = {p.name: declared_roles(p.name) for p in base_pipeline}
    params: list[Parameter] = []
    fixed: dict[str, Any] = {}
    used: set[str] = set()
    device_shared: list[tuple[str, str]] = []
    for p in base_pipeline:
        for o in options.get(p.name, []):
            role = roles.get(p.name, {}).get(o.name)
            qualified = f"{p.name}.{o.name}"
            short = o.name if counts[o.name] == 1 else f"{_identifier(p.name)}_{o.name}"
            if o.name in p.options:
                fixed[qualified] = list(p.options[o.name])
                env.setdefault(short, _written_value(o, p.options[o.name]))
                for key in (short, qualified, o.name):
                    if key in overrides:
                        raise CompileError(
                            f"option '{o.name}' of '{p.name}' is fixed in the pipeline string: "
                            "remove it there to tune it"
                        )
                continue
            axis = role.axis if role is not None else 0
            if axis >= max(parallel_dims, 1) and not _mentioned(overrides, short, qualified):
                fixed[qualified] = o.default  # a block/unroll axis the kernel does not have
                env.setdefault(short, o.default)
                continue
            if o.kind == "tuple":
                dims = len(o.default) if o.default else max(parallel_dims, 1)
                whole = _lookup(overrides, used, short, qualified)
                for i in range(dims):
                    name = f"{short}_{i}"
                    spec = _lookup(overrides, used, name, f"{qualified}_{i}")
                    if spec is None:
                        spec = whole
                    if spec is None and use_defaults:
                        spec = o.tuning_values
                    default_i = o.default[i] if o.default and i < len(o.default) else None
                    if spec is None:
                        fixed[f"{qualified}_{i}"] = default_i
                        env.setdefault(name, default_i)
                        continue
                    params.append(Parameter(name, p.name, o.name,
                                            resolve_values(spec, env, name), i, default_i, role))
                continue
            if role is not None and role.quantity == SHARED_LIMIT \
                    and not _mentioned(overrides, short, qualified):
                device_shared.append((p.name, o.name))
            spec = _lookup(overrides, used, short, qualified)
            declared = spec is None and use_defaults
            if declared:
                spec = o.tuning_values
            values = None if spec is None else resolve_values(spec, env, short)
            if values is None or (declared and values == (o.default,)):
                # untuned, or declared values that leave only the default for this kernel
                # (`[false, true] if parallel_dims >= 4 else [false]`)
                fixed[qualified] = list(o.default) if is_tuple(o.default) else o.default
                env.setdefault(short, o.default)
                continue
            params.append(Parameter(short, p.name, o.name, values, None, o.default, role))

    unknown = set(overrides) - used
    if unknown:
        known = [p.name for p in params] + [k.split(".", 1)[-1] for k in fixed]
        raise CompileError(
            f"the space names {', '.join(sorted(unknown))}, which "
            f"{'is not an option' if len(unknown) == 1 else 'are not options'} of the pipeline "
            f"(its options: {', '.join(sorted(set(known))) or 'none'})"
        )

    _check_size(params)
    all_restrictions: list[Restriction] = threads_restrictions(params)
    tuned = {p.name for p in params}
    for texts in (pass_restrictions or {}).values():
        for text in texts:
            restriction = Restriction.from_expression(text)
            # else it reads only values the user fixed (None: it may read any)
            if restriction.names is None or restriction.names & tuned:
                all_restrictions.append(restriction)
    all_restrictions += [as_restriction(r) for r in restrictions]
    return Space(params, all_restrictions, env, list(base_pipeline), fixed, device_shared)


def _written_value(option: OptionInfo, written: tuple[Any, ...]) -> Any:
    """An option's value as the pipeline string gives it (a tuple for tuple options)."""
    return written[0] if option.kind != "tuple" and len(written) == 1 else tuple(written)


def _check_size(params: Sequence[Parameter]) -> None:
    """At most MAX_CONFIGURATIONS configurations, counted before any is made."""
    size = math.prod(len(p.values) for p in params)
    if size > MAX_CONFIGURATIONS:
        largest = sorted(params, key=lambda p: -len(p.values))[:3]
        raise CompileError(
            f"the search space has {size} configurations, more than the limit of "
            f"{MAX_CONFIGURATIONS}: give fewer values to its largest parameters "
            f"({', '.join(f'{p.name}: {len(p.values)} values' for p in largest)}) with --set "
            "NAME=VALUES or a space file")


def _identifier(pass_name: str) -> str:
    return re.sub(r"\W", "_", pass_name)


def _mentioned(overrides: Mapping[str, Any], *keys: str) -> bool:
    return any(k in overrides for k in keys)


def _lookup(overrides: Mapping[str, Any], used: set[str], *keys: str) -> Any:
    for key in keys:
        if key in overrides:
            used.add(key)
            return overrides[key]
    return None


# --- space files -------------------------------------------------------------------------------


@dataclass
class SpaceFile:
    """What a `--space` file says: parameter values, restrictions, array lengths, inputs."""

    parameters: dict[str, Any] = field(default_factory=dict[str, Any])
    restrictions: list[str] = field(default_factory=list[str])
    arrays: dict[str, str] = field(default_factory=dict[str, str])
    sizes: dict[str, Any] = field(default_factory=dict[str, Any])
    use_defaults: bool = True


def load_space_file(path: str | Path) -> SpaceFile:
    """Read a JSON or TOML space file (see docs/tuner.md for the format)."""
    path = Path(path)
    if not path.is_file():
        raise CompileError(f"no such space file: {path}")
    text = path.read_text()
    try:
        if path.suffix == ".toml":
            import tomllib

            data = tomllib.loads(text)
        else:
            data = json.loads(text)
    except ValueError as e:  # TOMLDecodeError and JSONDecodeError are ValueErrors
        kind = "TOML" if path.suffix == ".toml" else "JSON"
        raise CompileError(f"{path}: not valid {kind}: {e}") from None
    if not is_dict(data):
        raise CompileError(f"{path}: expected a table/object at the top level")
    known = {"parameters", "restrictions", "arrays", "sizes", "defaults"}
    extra = set(data) - known
    if extra:
        raise CompileError(f"{path}: unknown keys {', '.join(sorted(extra))} "
                           f"(known: {', '.join(sorted(known))})")
    params = data.get("parameters", {})
    restrictions = data.get("restrictions", [])
    if isinstance(restrictions, str):
        restrictions = [restrictions]
    if not is_dict(params) or not is_list(restrictions):
        raise CompileError(f"{path}: 'parameters' must be a table and 'restrictions' a list")
    return SpaceFile(dict(params), [str(r) for r in restrictions], dict(data.get("arrays", {})),
                     dict(data.get("sizes", {})), bool(data.get("defaults", True)))


def product_of(space: Space) -> Iterator[dict[str, Any]]:
    """The unrestricted product (for tests and estimates)."""
    for values in itertools.product(*(p.values for p in space.parameters)):
        yield dict(zip(space.names, values))
