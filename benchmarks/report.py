"""Result rows, the printed table and the JSON document (the same numbers in both)."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any

OK, FAILED, UNAVAILABLE = "ok", "FAILED", "unavailable"


@dataclass
class Row:
    problem: str  # the C function: matmul, conv2d
    variant: str  # mm_autogpu, or the peer's name
    size: str  # e.g. "2048x2048x2048"
    sizes: dict[str, int]
    pipeline: str | None  # the pipeline that ran (or was wanted); None for a peer
    status: str = OK  # OK, FAILED or UNAVAILABLE
    detail: str = ""  # why FAILED or unavailable
    is_peer: bool = False
    fallback: bool = False  # `pipeline` is one of the variant's fallbacks
    median_ms: float | None = None
    min_ms: float | None = None
    max_ms: float | None = None
    gflops: float | None = None
    gbs: float | None = None  # compulsory bytes / time
    vs_peer: float | None = None  # peer time / our time: > 1 is faster than the peer
    pct_roofline: float | None = None
    bound: str | None = None  # "compute" or "memory": the roof that applies
    max_abs_err: float | None = None
    rel_err: float | None = None  # max abs error / max |reference|
    samples_ms: list[float] = field(default_factory=list[float])
    # --pycuda: the same kernel timed and checked through autogpu's own executor
    pycuda_ms: float | None = None
    pycuda_rel_err: float | None = None
    pycuda_error: str | None = None

    @property
    def status_text(self) -> str:
        return f"{self.status}: {self.detail}" if self.detail else self.status


COLUMNS = ("kernel", "variant", "size", "ms", "GFLOP/s", "GB/s", "vs peer", "% roof", "abs err",
           "rel err", "status")


def _num(value: float | None, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def table_cells(row: Row) -> tuple[str, ...]:
    return (
        row.problem,
        f"[{row.variant}]" if row.is_peer else row.variant + "*" * row.fallback,
        row.size,
        _num(row.median_ms, ".3f"),
        _num(row.gflops, ".0f"),
        _num(row.gbs, ".0f"),
        _num(row.vs_peer, ".2f") + ("x" if row.vs_peer is not None else ""),
        _num(row.pct_roofline, ".1f") + (f" {row.bound[0]}" if row.bound else ""),
        _num(row.max_abs_err, ".1e"),
        _num(row.rel_err, ".1e"),
        row.status_text,
    )


def format_table(rows: list[Row]) -> str:
    """A plain fixed-width table; the peer's rows are in [brackets], '% roof' is followed by
    the roof that applies (c: compute, m: memory). A 'pycuda ms' column follows 'ms' when a
    row was also timed through autogpu's pycuda executor."""
    columns, cells = COLUMNS, [table_cells(r) for r in rows]
    if any(r.pycuda_ms is not None or r.pycuda_error for r in rows):
        columns = (*columns[:4], "pycuda ms", *columns[4:])
        cells = [(*c[:4], pycuda_cell(r), *c[4:]) for c, r in zip(cells, rows)]
    cells = [columns, *cells]
    widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
    numeric = set(range(3, len(columns) - 1))

    def fmt(line: tuple[str, ...]) -> str:
        parts = [c.rjust(w) if i in numeric else c.ljust(w)
                 for i, (c, w) in enumerate(zip(line, widths))]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * w for w in widths)
    fallback = any(r.fallback for r in rows)
    note = ["* ran its fallback pipeline (--list shows them)"] if fallback else []
    return "\n".join([fmt(cells[0]), rule] + [fmt(c) for c in cells[1:]] + note)


def pycuda_cell(row: Row) -> str:
    return "error" if row.pycuda_error else _num(row.pycuda_ms, ".3f")


def to_json(rows: list[Row], **header: Any) -> str:
    return json.dumps({**header, "rows": [dataclasses.asdict(r) for r in rows]}, indent=2)


def rows_from_json(text: str) -> list[Row]:
    return [Row(**r) for r in json.loads(text)["rows"]]
