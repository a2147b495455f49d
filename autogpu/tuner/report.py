"""Tuning outputs: the JSON report, the best kernel, a terminal table and a plot of the search.

Files written to the output directory:
- `report.json`: the run (kernel, sizes, device, space, strategy) and every variant in the order
  results arrived (parameters, status, median time, all times, failure stage and reason, whether
  it came from the cache), the best variant, and the strategy comparison if one was made;
- `best.cu`: the fastest verified variant's CUDA source, its launch description on the first line
  (`// autogpu-launch: {...}`, as `autogpu-opt -t cuda` prints it);
- `best.json`: its parameters, pipeline, time, launch description and the launch configuration
  evaluated for the tuned sizes;
- `search.png`: time per variant in the order tried with the best so far, and time against each
  parameter's values (failures marked on the top edge).
"""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from autogpu.api import option_value, options_text
from autogpu.diagnostics import CompileError
from autogpu.narrowing import is_tuple

REPORT_SCHEMA = "autogpu-tune-report/1"


def format_time(seconds: float | None) -> str:
    if seconds is None or not math.isfinite(seconds):
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3f} {unit}"
    return f"{seconds / 1e-9:.1f} ns"


def table(variants: Sequence[Mapping[str, Any]], top: int = 10, names: Sequence[str] | None = None
          ) -> str:
    """The fastest `top` verified variants as an aligned text table, then a failure summary."""
    ok = sorted((v for v in variants if v["status"] == "ok"), key=lambda v: v["time_s"])
    failed = [v for v in variants if v["status"] != "ok"]
    if names is None:
        names = list(variants[0]["params"]) if variants else []
    best = ok[0]["time_s"] if ok else None
    header = ["rank", *names, "time", "vs best"]
    rows: list[list[str]] = []
    for rank, v in enumerate(ok[:top], 1):
        rows.append([str(rank), *(option_value(v["params"].get(n)) for n in names),
                     format_time(v["time_s"]), f"{v['time_s'] / best:.2f}x" if best else "-"])
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(header)]
    lines = ["  ".join(h.rjust(w) for h, w in zip(header, widths))]
    lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in rows]
    if not ok:
        lines.append("(no variant passed verification)")
    if failed:
        by_stage: dict[str, int] = {}
        for v in failed:
            by_stage[v.get("stage") or "?"] = by_stage.get(v.get("stage") or "?", 0) + 1
        summary = ", ".join(f"{n} {stage}" for stage, n in sorted(by_stage.items()))
        lines.append(f"{len(ok)} verified, {len(failed)} failed ({summary})")
        first = failed[0]
        lines.append(f"  e.g. {options_text(first['params'])}: "
                     f"[{first.get('stage')}] {(first.get('reason') or '').splitlines()[0][:160]}")
    else:
        lines.append(f"{len(ok)} verified, 0 failed")
    return "\n".join(lines)


def check_output_dir(path: str | Path) -> None:
    """Raise CompileError unless the outputs can be written to `path` (made later, with its
    parents): checked before tuning, so that a run is not lost at its end for a mistyped `-o`.
    Nothing is created."""
    path = Path(path)
    existing = next(p for p in (path, *path.parents) if p.exists() or p.is_symlink())
    if not existing.is_dir():
        raise CompileError(f"cannot write the outputs to {path}: {existing} is a file")
    try:
        tempfile.TemporaryFile(dir=existing).close()
    except OSError as e:
        raise CompileError(f"cannot write the outputs to {path}: {existing} is not writable "
                           f"({(e.strerror or str(e)).lower()})") from None


def write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, default=_default) + "\n")


def _default(value: Any) -> Any:
    if is_tuple(value):
        return list(value)
    if hasattr(value, "item"):
        return value.item()
    return str(value)


def write_best(outdir: Path, best: Mapping[str, Any], cuda_source: str, launch: Mapping[str, Any],
               launch_config: Any) -> tuple[Path, Path]:
    """best.cu (with the launch description on its first line) and best.json."""
    cu = outdir / "best.cu"
    header = "// autogpu-launch: " + json.dumps(launch, separators=(",", ":"))
    params = options_text(best["params"])
    cu.write_text(f"{header}\n// autogpu-tune: {params}; median {format_time(best['time_s'])}\n"
                  f"{cuda_source}")
    meta = outdir / "best.json"
    write_json(meta, {"params": best["params"], "pipeline": best.get("pipeline"),
                      "time_s": best["time_s"], "launch": launch,
                      "launch_config": launch_config})
    return cu, meta


def plot(path: Path, variants: Sequence[Mapping[str, Any]], names: Sequence[str],
         title: str = "") -> Path:
    """search.png: time per variant in order tried (with best so far), and per parameter."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    names = list(names)
    ncols = 1 + len(names)
    fig, axes = plt.subplots(1, ncols, figsize=(5 + 3.2 * len(names), 4), squeeze=False)
    axes = axes[0]
    ok_times = [v["time_s"] for v in variants if v["status"] == "ok"]
    top = max(ok_times) * 1.15 if ok_times else 1.0
    scale, unit = _unit(ok_times)

    ax = axes[0]
    xs_ok = [i for i, v in enumerate(variants) if v["status"] == "ok"]
    ax.scatter(xs_ok, [variants[i]["time_s"] / scale for i in xs_ok], s=12, label="verified")
    xs_bad = [i for i, v in enumerate(variants) if v["status"] != "ok"]
    if xs_bad:
        ax.scatter(xs_bad, [top / scale] * len(xs_bad), marker="x", color="red", s=16,
                   label="failed")
    best = math.inf
    best_line: list[float] = []
    for v in variants:
        if v["status"] == "ok":
            best = min(best, v["time_s"])
        best_line.append(best / scale if math.isfinite(best) else float("nan"))
    ax.plot(range(len(variants)), best_line, color="black", linewidth=1, label="best so far")
    ax.set_xlabel("variant (order tried)")
    ax.set_ylabel(f"time ({unit})")
    ax.set_title(title or "search")
    ax.legend(loc="upper right", fontsize=8)

    for ax, name in zip(axes[1:], names):
        values: list[str] = []
        for v in variants:
            value = option_value(v["params"].get(name))
            if value not in values:
                values.append(value)
        try:
            values.sort(key=float)
        except ValueError:
            pass
        pos = {val: i for i, val in enumerate(values)}
        ok = [v for v in variants if v["status"] == "ok"]
        ax.scatter([pos[option_value(v["params"].get(name))] for v in ok],
                   [v["time_s"] / scale for v in ok], s=12, alpha=0.6)
        bad = [v for v in variants if v["status"] != "ok"]
        if bad:
            ax.scatter([pos[option_value(v["params"].get(name))] for v in bad],
                       [top / scale] * len(bad),
                       marker="x", color="red", s=16)
        ax.set_xticks(range(len(values)))
        ax.set_xticklabels(values, rotation=45 if len(values) > 6 else 0, fontsize=8)
        ax.set_xlabel(name)
    fig.tight_layout()
    fig.savefig(path, dpi=100)  # pyright: ignore[reportUnknownMemberType]  # matplotlib's stub: PathLike without its parameter
    plt.close(fig)
    return path


def _unit(times: Sequence[float]) -> tuple[float, str]:
    if not times:
        return 1.0, "s"
    t = min(times)
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us")):
        if t >= scale:
            return scale, unit
    return 1e-9, "ns"


def compare_table(comparison: Mapping[str, Any]) -> str:
    """The `--compare-strategies` section as text."""
    lines = [f"evaluations to reach within {comparison['tolerance'] * 100:g}% of the optimum "
             f"({format_time(comparison['optimum_s'])}, {comparison['variants']} variants):"]
    for name, s in comparison["strategies"].items():
        runs = s["evaluations"]
        if s["median"] is None:
            lines.append(f"  {name:>10}: never")
            continue
        frac = s["fraction_of_space"] * 100
        lines.append(f"  {name:>10}: median {s['median']:g}, mean {s['mean']:.1f}, max "
                     f"{s['max']} ({frac:.0f}% of the space; {len(runs)} run"
                     f"{'s' if len(runs) > 1 else ''})")
    return "\n".join(lines)
