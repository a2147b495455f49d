"""Testing-platform mode (the AutoGPU paper's section 3.3): tune a kernel inside your own program.

For each variant the tuner writes a directory with
- `kernel.cu`: the variant's kernels, `#define AUTOGPU_<PARAM> value` for each tuned parameter,
  and a host launcher `autogpu_launch_<function>(...)` taking the C function's parameters
  (device pointers for arrays) that launches the kernels with the variant's configuration,
  inside the loops and ifs of the function's host program (a time loop stays a loop), and
  `autogpu_run_<function>(...)` on host arrays, copying as their OpenMP maps say
  (`map_launcher.py`);
- `launch.json`: the launch description;
- `{host}`: an instrumented copy of `--host-source` (if given), in which the statement after each
  `// autogpu: time` line is wrapped in timing and error-check code: CUDA events and
  `cudaGetLastError`/`cudaEventSynchronize` under nvcc (a failed launch exits with status 3),
  `clock_gettime` elsewhere; it prints `autogpu-time-ms: X` per launch. `// autogpu: time
  repeat=N` times N launches (one line each; the median is kept).

then runs `--build` (in the compile pool, in parallel) and `--run` (one at a time, with the
timeout) with `{cu}`, `{dir}`, `{host}`, `{launch}` and `{PARAM}` substituted. A non-zero exit of
either fails the variant; the time is group 1 of `--time-regex` in the output of `--run` (or in
`--time-file`), in `--time-unit`; several matches give their median. Verification is the
program's own business: it should exit non-zero when its results are wrong.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import statistics
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from autogpu.diagnostics import CompileError
from autogpu.dialects.signature import BY_DTYPE, C_TYPES
from autogpu.narrowing import is_sequence, is_tuple
from autogpu.target.cuda_limits import SHARED_BYTES_PER_BLOCK
from autogpu.target.launch_steps import counters, steps_of, to_cxx
from autogpu.tuner import adapter
from autogpu.tuner.kernel import KernelCompiler, compile_task
from autogpu.tuner.map_launcher import run_function
from autogpu.tuner.measure import Measurer, Outcome
from autogpu.tuner.values import DeviceInfo

if TYPE_CHECKING:  # options.py refers to HostProgram the same way
    from autogpu.tuner.options import TuneOptions

DEFAULT_TIME_REGEX = r"autogpu-time-ms:\s*([-+0-9.eE]+)"
UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
MARKER = re.compile(r"^(?P<indent>[ \t]*)//[ \t]*autogpu:[ \t]*time(?P<args>[^\n]*)$")
_OUTPUT_TAIL = 1500

TIMING_PRELUDE = r"""// ---- inserted by autogpu-tune: timing and error checks around marked kernels
#include <stdio.h>
#include <stdlib.h>
#ifdef __CUDACC__
#include <cuda_runtime.h>
#define AUTOGPU_TIME_BEGIN() \
  cudaEvent_t agpu_t0, agpu_t1; cudaEventCreate(&agpu_t0); cudaEventCreate(&agpu_t1); \
  cudaEventRecord(agpu_t0)
#define AUTOGPU_TIME_END() do { \
  cudaError_t agpu_e = cudaGetLastError(); \
  cudaEventRecord(agpu_t1); \
  if (agpu_e == cudaSuccess) agpu_e = cudaEventSynchronize(agpu_t1); \
  if (agpu_e == cudaSuccess) agpu_e = cudaGetLastError(); \
  if (agpu_e != cudaSuccess) { \
    fprintf(stderr, "autogpu: kernel launch failed: %s\n", cudaGetErrorString(agpu_e)); exit(3); } \
  float agpu_ms = 0.0f; cudaEventElapsedTime(&agpu_ms, agpu_t0, agpu_t1); \
  cudaEventDestroy(agpu_t0); cudaEventDestroy(agpu_t1); \
  printf("autogpu-time-ms: %.6f\n", agpu_ms); fflush(stdout); } while (0)
#else
#include <time.h>
#define AUTOGPU_TIME_BEGIN() struct timespec agpu_t0, agpu_t1; \
  clock_gettime(CLOCK_MONOTONIC, &agpu_t0)
#define AUTOGPU_TIME_END() do { clock_gettime(CLOCK_MONOTONIC, &agpu_t1); \
  printf("autogpu-time-ms: %.6f\n", (agpu_t1.tv_sec - agpu_t0.tv_sec) * 1e3 + \
         (agpu_t1.tv_nsec - agpu_t0.tv_nsec) * 1e-6); fflush(stdout); } while (0)
#endif
// ---- end of autogpu-tune's prelude ----
"""


def instrument(source: str, filename: str = "<host>") -> str:
    """Insert timing/error-check code around the statement after each `// autogpu: time`."""
    lines = source.split("\n")
    out: list[str] = []
    i = 0
    count = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        repeat = 1
        args = m.group("args").strip()
        if args:
            rm = re.fullmatch(r"repeat\s*=\s*(\d+)", args)
            if not rm or int(rm.group(1)) < 1:
                raise CompileError(f"{filename}:{i + 1}: '// autogpu: time {args}': expected "
                                   "nothing or repeat=N")
            repeat = int(rm.group(1))
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        k = j
        while k < len(lines) and not lines[k].rstrip().endswith(";"):
            k += 1
        if j >= len(lines) or k >= len(lines):
            raise CompileError(f"{filename}:{i + 1}: '// autogpu: time' is not followed by a "
                               "statement ending with ';'")
        indent = m.group("indent")
        statement = lines[j:k + 1]
        out.append(f"{indent}for (int agpu_r = 0; agpu_r < {repeat}; ++agpu_r) {{ "
                   f"AUTOGPU_TIME_BEGIN();  /* autogpu: time */")
        out.extend(statement)
        out.append(f"{indent}AUTOGPU_TIME_END(); }}")
        count += 1
        i = k + 1
    if count == 0:
        raise CompileError(f"{filename}: no '// autogpu: time' line: put one before the kernel "
                           "launch to time, or read the time with --time-regex")
    # Keep line numbers of the user's code recognisable: the prelude goes first, with a #line.
    return TIMING_PRELUDE + f'#line 1 "{filename}"\n' + "\n".join(out)


def launcher(artifact: adapter.Artifact, config: Mapping[str, Any]) -> str:
    """kernel.cu: the kernels, AUTOGPU_<PARAM> macros and `autogpu_launch_<function>`."""
    entry = artifact.entry
    lines = ["// generated by autogpu-tune for one variant",
             *(f"#define AUTOGPU_{re.sub(r'[^A-Za-z0-9]', '_', k).upper()} {_c_value(v)}"
               for k, v in config.items()),
             artifact.cuda_source, "", "#ifdef __CUDACC__", LAUNCH_SIZE_HELPERS]
    params: list[str] = []
    for p in entry["params"]:
        # The kernel's own (canonical) C name: the user's spelling may be C only (`_Bool`),
        # need a header (`uint8_t`) or be another C++ pointer type (`char *`, `long *`).
        ctype = BY_DTYPE[p["dtype"]].name if p.get("dtype") in BY_DTYPE else p["ctype"]
        const = "const " if p.get("const") else ""
        params.append(f"{const}{ctype} *{p['name']}" if p["kind"] == "array"
                      else f"{ctype} {p['name']}")
    scalars = {p["name"]: p.get("dtype", "") for p in entry["params"] if p["kind"] == "scalar"}
    scalars.update({var: C_TYPES[ctype].dtype for var, ctype in counters(steps_of(entry)).items()})
    lines.append(f"static inline void autogpu_launch_{entry['name']}({', '.join(params)}) {{")

    def one_launch(index: int) -> list[str]:
        launch = entry["launches"][index]
        g = ", ".join(f"(unsigned)({_c_expr(e, scalars)})" for e in launch["grid"])
        b = ", ".join(f"(unsigned)({_c_expr(e, scalars)})" for e in launch["block"])
        shared = _c_expr(launch.get("dynamic_shared_bytes", "0"), scalars)
        opt_in = [] if str(launch.get("dynamic_shared_bytes", "0")) == "0" else [
            # beyond 48 KiB of shared memory in all a kernel must opt in (up to the device's
            # maximum; a launch beyond that fails, and with it the variant)
            f"  if ((size_t)({shared}) + {int(launch.get('static_shared_bytes', 0))} > "
            f"{SHARED_BYTES_PER_BLOCK}) cudaFuncSetAttribute({launch['kernel']}, "
            f"cudaFuncAttributeMaxDynamicSharedMemorySize, (int)({shared}));"]
        return [f"{{ dim3 agpu_grid({g}), agpu_block({b});", *opt_in,
                f"  if (agpu_grid.x && agpu_grid.y && agpu_grid.z) {launch['kernel']}"
                f"<<<agpu_grid, agpu_block, (size_t)({shared})>>>({', '.join(launch['args'])}); }}"]

    # the call's scratch buffers (launch description: `scratch`), zero-filled, freed at the end
    scratch = [(str(b["name"]), BY_DTYPE[b["dtype"]].name, _c_expr(b["elements"], scalars))
               for b in entry.get("scratch", [])]  # fmt: skip
    for name, ctype, elements in scratch:
        size = f"(size_t)({elements}) * sizeof({ctype})"
        lines += [f"  {ctype} *{name} = nullptr;",
                  f"  cudaMalloc((void **)&{name}, {size} > 0 ? {size} : 1);",
                  f"  cudaMemset({name}, 0, {size});"]
    # the host program: loops and ifs around the launches (launch_steps)
    lines += to_cxx(steps_of(entry), lambda e: _c_expr(e, scalars), one_launch)
    lines += [f"  cudaFree({name});" for name, _, _ in scratch]
    lines += ["}", "#endif", "", "#ifdef __CUDACC__", *run_function(entry, params), "#endif", ""]
    return "\n".join(lines)


LAUNCH_SIZE_HELPERS = (
    "template <class A, class B> static inline auto agpu_min(A a, B b) -> decltype(a + b) "
    "{ return (decltype(a + b))a < (decltype(a + b))b ? a : b; }\n"
    "template <class A, class B> static inline auto agpu_max(A a, B b) -> decltype(a + b) "
    "{ return (decltype(a + b))a > (decltype(a + b))b ? a : b; }"
)
"""min/max of the launch language in C++: in the type C's usual arithmetic conversions give
(`unsigned long long` when either operand is), as `autogpu.target.launch.evaluate` computes."""


def _c_expr(expr: str, scalars: Mapping[str, str]) -> str:
    """A launch expression as C++ computing exactly like `autogpu.target.launch.evaluate`:
    parameters (name -> NumPy dtype name) and the results of `(int)`/`(unsigned)` widened to
    `long long`, a `uint64` parameter to `unsigned long long`, min/max by `LAUNCH_SIZE_HELPERS`."""
    expr = re.sub(r"\b(min|max)\s*\(", r"agpu_\1(", str(expr))
    expr = re.sub(r"\((int|unsigned)\)", r"(long long)(\1)", expr)

    def widened(m: re.Match[str]) -> str:
        if m[0] not in scalars:
            return m[0]
        dtype = np.dtype(scalars[m[0]] or np.int64)
        wide = "unsigned long long" if (dtype.kind, dtype.itemsize) == ("u", 8) else "long long"
        return f"({wide}){m[0]}"

    return re.sub(r"\b[A-Za-z_]\w*\b", widened, expr)


def _c_value(v: Any) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if is_sequence(v):
        return "{" + ", ".join(_c_value(x) for x in v) + "}"
    return str(v)


@dataclass(frozen=True)
class HostProgram:
    """The user's build/run commands and where the time comes from."""

    build: str
    run: str
    host_source: str | None = None
    time_regex: str | None = None
    time_unit: str = "ms"
    time_file: str | None = None
    timeout: float = 60.0
    workdir: str | None = None  # where the variant directories go

    def regex(self) -> re.Pattern[str]:
        try:
            pattern = re.compile(self.time_regex or DEFAULT_TIME_REGEX)
        except re.error as e:
            raise CompileError(f"--time-regex '{self.time_regex}': {e}") from None
        if pattern.groups < 1:
            raise CompileError(f"--time-regex '{self.time_regex}' needs a group: (...) around "
                               "the number")
        return pattern

    def validate(self) -> None:
        self.regex()
        if self.time_unit not in UNITS:
            raise CompileError(f"unknown time unit '{self.time_unit}' (s, ms, us, ns)")
        if self.host_source is not None:
            path = Path(self.host_source)
            if not path.is_file():
                raise CompileError(f"no such host source: {path}")
            instrument(path.read_text(), str(path))

    def fingerprint(self) -> str:
        h = hashlib.sha256(json.dumps([self.build, self.run, self.time_regex, self.time_unit,
                                       self.time_file]).encode())
        if self.host_source:
            h.update(Path(self.host_source).read_bytes())
        return h.hexdigest()[:16]


def substitute(template: str, values: Mapping[str, Any]) -> str:
    """Replace {name} by its value (shell-quoted paths); unknown names are an error."""
    def repl(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in values:
            raise CompileError(f"'{template}': unknown placeholder {{{name}}} (known: "
                               f"{', '.join('{' + k + '}' for k in values)})")
        v = values[name]
        return shlex.quote(str(v)) if isinstance(v, (str, Path)) else _c_value(v)

    return re.sub(r"\{([A-Za-z_][\w]*)\}", repl, template)


def _tail(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _OUTPUT_TAIL else "..." + text[-_OUTPUT_TAIL:]


@dataclass(frozen=True)
class HostArtifact:
    """A variant built for the host program: the compiled kernel and its directory."""

    artifact: adapter.Artifact
    directory: str

    @property
    def cuda_source(self) -> str:
        return self.artifact.cuda_source

    @property
    def launch(self) -> dict[str, Any]:
        return self.artifact.launch

    @property
    def entry(self) -> dict[str, Any]:
        return self.artifact.entry

    @property
    def digest(self) -> str:
        return self.artifact.digest


class HostBuildError(Exception):
    stage = "build"


def host_compile_task(source: str, filename: str, function: str, pipeline: str, hook: Any,
                      host: HostProgram, instrumented: str | None,
                      config: Mapping[str, Any]) -> HostArtifact:
    """Pool worker: compile the variant, write its directory (with `instrumented`, the host
    source with the timing code), run --build there."""
    artifact = compile_task(source, filename, function, pipeline, hook, None, None, config)
    key = hashlib.sha256(json.dumps(dict(config), sort_keys=True, default=str).encode())
    directory = Path(host.workdir or ".").resolve() / key.hexdigest()[:12]
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "kernel.cu").write_text(launcher(artifact, config))
    (directory / "launch.json").write_text(json.dumps(artifact.launch, indent=2))
    (directory / "params.json").write_text(json.dumps(dict(config), indent=2, default=str))
    values = _values(host, directory, config)
    if instrumented is not None:
        assert host.host_source is not None  # what was instrumented
        (directory / Path(host.host_source).name).write_text(instrumented)
    command = substitute(host.build, values)
    try:
        done = subprocess.run(command, shell=True, cwd=directory, capture_output=True, text=True,
                              timeout=max(host.timeout, 300.0), check=False)
    except subprocess.TimeoutExpired:
        raise HostBuildError(f"build did not finish: {command}") from None
    if done.returncode != 0:
        raise HostBuildError(f"build failed (exit {done.returncode}): {command}\n"
                             f"{_tail(done.stderr + done.stdout)}")
    return HostArtifact(artifact, str(directory))


def _values(host: HostProgram, directory: Path, config: Mapping[str, Any]) -> dict[str, Any]:
    values: dict[str, Any] = {"dir": str(directory), "cu": str(directory / "kernel.cu"),
                              "launch": str(directory / "launch.json")}
    if host.host_source is not None:
        values["host"] = str(directory / Path(host.host_source).name)
    for k, v in config.items():
        values.setdefault(k, v)
    return values


@dataclass
class HostCompiler(KernelCompiler):
    """KernelCompiler whose tasks also build the user's program."""

    host: HostProgram | None = None
    launch_must_evaluate: ClassVar[bool] = False

    @cached_property
    def instrumented(self) -> str | None:
        """The host source with the timing code, made once for every variant."""
        assert self.host is not None  # a HostCompiler is made with its host program
        if self.host.host_source is None:
            return None
        path = Path(self.host.host_source)
        return instrument(path.read_text(), str(path))

    def task(self, config: Mapping[str, Any]) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        return host_compile_task, (self.source, self.filename, self.function,
                                   self.pipeline(config), self.hook, self.host,
                                   self.instrumented, dict(config))

    def check(self, config: Mapping[str, Any], artifact: Any) -> str | None:
        return super().check(config, artifact.artifact)

    def to_record(self, artifact: Any) -> dict[str, Any]:
        return super().to_record(artifact.artifact)


@dataclass
class HostMeasurer(Measurer):
    """Runs the user's program for a built variant and reads the time it reports."""

    host: HostProgram

    def setup(self) -> DeviceInfo:
        return {"backend": "host-program", "program": self.host.fingerprint()}

    def measure(self, config: Mapping[str, Any], artifact: Any) -> Outcome:
        directory = Path(artifact.directory)
        command = substitute(self.host.run, _values(self.host, directory, config))
        start = time.perf_counter()
        try:
            done = subprocess.run(command, shell=True, cwd=directory, capture_output=True,
                                  text=True, timeout=self.host.timeout, check=False)
        except subprocess.TimeoutExpired:
            return Outcome.failed("timeout", f"'{command}' did not finish within "
                                  f"{self.host.timeout:g} s")
        wall = time.perf_counter() - start
        if done.returncode != 0:
            return Outcome.failed("run", f"'{command}' exited with status {done.returncode}: "
                                  f"{_tail(done.stderr + done.stdout)}")
        text = done.stdout
        if self.host.time_file:
            path = directory / self.host.time_file
            if not path.is_file():
                return Outcome.failed("time", f"the program wrote no {self.host.time_file}")
            text = path.read_text()
        matches = self.host.regex().findall(text)
        values: list[float] = []
        for m in matches:
            raw = m[0] if is_tuple(m) else m
            try:
                values.append(float(raw) * UNITS[self.host.time_unit])
            except ValueError:
                return Outcome.failed("time", f"'{raw}' (matched by the time regex) is not a "
                                      "number")
        if not values:
            return Outcome.failed("time", f"no time in the output of '{command}' (regex "
                                  f"{self.host.regex().pattern!r}): {_tail(text)}")
        return Outcome("ok", statistics.median(values), values, extra={"wall_s": wall})


def host_options(options: TuneOptions, host: HostProgram) -> TuneOptions:
    """TuneOptions for testing-platform mode (the program verifies; no reference kernel)."""
    host.validate()
    return options.updated(host=host, reference=None)
