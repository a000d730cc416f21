"""What a Space shows: table cells, the headline numbers (with their intervals), a score
histogram as inline SVG (no plotting library, nothing fetched) and the per-sample table."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from metricore_hf.workers.jobs import display  # its home: the workers build the rows with it

__all__ = [
    "HEADLINE_CSS",
    "CI_LOW",
    "CI_HIGH",
    "display",
    "headline_html",
    "histogram_svg",
    "table_value",
    "with_intervals",
]

_HIST_BINS = 10
CI_LOW, CI_HIGH = "_ci_low", "_ci_high"


def _fmt(value: Any) -> str:
    """A number as shown: 4 decimals; a non-finite number (sent as ``"nan"``/``"inf"``, see
    :func:`metricore.core.structured.jsonable`) as that text."""
    return f"{value:.4f}" if isinstance(value, float) else str(value)


def with_intervals(headline: Mapping[str, Any]) -> list[tuple[str, Any, tuple[float, float] | None]]:
    """``(key, value, (low, high) or None)`` for each headline number, its interval attached."""
    out = []
    for key, value in headline.items():
        for suffix in (CI_LOW, CI_HIGH):
            if key.endswith(suffix) and key[: -len(suffix)] in headline:
                break
        else:
            low, high = headline.get(key + CI_LOW), headline.get(key + CI_HIGH)
            ci = (low, high) if isinstance(low, float) and isinstance(high, float) else None
            out.append((key, value, ci))
    return out


def headline_html(headline: Mapping[str, Any], n: int, level: float | None) -> str:
    esc = html.escape
    cells = []
    for key, value, ci in with_intervals(headline):
        text = _fmt(value) + (f" [{_fmt(ci[0])}, {_fmt(ci[1])}]" if ci else "")
        data = f'data-key="{esc(key)}" data-value="{esc(repr(value))}"'
        if ci:
            data += f' data-ci-low="{ci[0]!r}" data-ci-high="{ci[1]!r}"'
        cells.append(
            f'<div class="mc-stat" {data}><div class="mc-label">{esc(key)}</div>'
            f'<div class="mc-value">{esc(text)}</div></div>'
        )
    note = f"{n:,} sample{'s' if n != 1 else ''}"
    if level is not None and any(ci for _, _, ci in with_intervals(headline)):
        note += f" · [low, high]: {level:.0%} bootstrap interval (resampling the samples)"
    return f'<div class="mc-headline">{"".join(cells)}</div><p class="mc-note">{note}</p>'


HEADLINE_CSS = """
.mc-headline { display: flex; flex-wrap: wrap; gap: 10px; margin-top: 4px; }
.mc-stat { border: 1px solid var(--border-color-primary); border-radius: 8px; padding: 8px 14px; min-width: 110px; }
.mc-label { font-size: 0.85em; opacity: 0.75; }
.mc-value { font-size: 1.45em; font-weight: 600; font-variant-numeric: tabular-nums; }
.mc-note { font-size: 0.85em; opacity: 0.75; margin: 6px 0 0; }
"""


def _bin_counts(scores: Sequence[float], score_range: tuple[float, float]) -> list[int]:
    """Counts in ten equal bins over ``score_range``; scores outside go to the end bins."""
    lo, hi = score_range
    counts = [0] * _HIST_BINS
    for s in scores:
        counts[min(max(int((s - lo) / (hi - lo) * _HIST_BINS), 0), _HIST_BINS - 1)] += 1
    return counts


def histogram_svg(
    scores: Sequence[float],
    score_range: tuple[float, float],
    marker: tuple[str, float, tuple[float, float] | None] | None = None,
) -> str:
    """The score histogram as inline SVG; ``marker`` = (label, headline value, interval or
    None) is drawn as a dashed line over a band (no plotting library, nothing fetched)."""
    lo, hi = score_range
    counts = _bin_counts(scores, score_range)
    width, height, left, right, top, bottom = 640, 236, 40, 18, 34, 40
    pw, ph = width - left - right, height - top - bottom
    tallest = max(counts) or 1
    bw = pw / _HIST_BINS

    def x(v: float) -> float:
        return left + (min(max(v, lo), hi) - lo) / (hi - lo) * pw

    esc = html.escape
    out = [
        f'<svg class="mc-hist" viewBox="0 0 {width} {height}" width="100%" style="max-width:{width}px" '
        f'xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Score histogram" '
        f'data-counts="{",".join(map(str, counts))}" font-family="ui-sans-serif, system-ui, sans-serif" '
        f'font-size="11" fill="currentColor">',
        f'<text x="{left}" y="14" font-size="13" font-weight="600">Score histogram ({len(scores):,} samples)</text>',
    ]
    if marker is not None and marker[2] is not None:
        c_lo, c_hi = marker[2]
        out.append(
            f'<rect class="mc-ci" x="{x(c_lo):.1f}" y="{top}" width="{max(x(c_hi) - x(c_lo), 1.5):.1f}" '
            f'height="{ph}" fill="#f97316" fill-opacity="0.22" data-low="{c_lo!r}" data-high="{c_hi!r}"/>'
        )
    for i, c in enumerate(counts):
        h = c / tallest * ph
        x0 = left + i * bw
        edge_lo, edge_hi = lo + i * (hi - lo) / _HIST_BINS, lo + (i + 1) * (hi - lo) / _HIST_BINS
        out.append(
            f'<rect x="{x0 + 1.5:.1f}" y="{top + ph - h:.1f}" width="{bw - 3:.1f}" height="{h:.1f}" '
            f'fill="#6366f1" fill-opacity="0.85"><title>{edge_lo:.4g}–{edge_hi:.4g}: {c}</title></rect>'
        )
        if c:  # inside the bar when it fits, so the marker's label above the plot stays clear
            inside = h >= 16
            y = top + ph - h + (12 if inside else -3)
            fill = ' fill="white"' if inside else ""
            out.append(f'<text x="{x0 + bw / 2:.1f}" y="{y:.1f}" text-anchor="middle"{fill}>{c}</text>')
    out.append(
        f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="currentColor" stroke-opacity="0.5"/>'
    )
    for i in range(_HIST_BINS + 1):
        tx = left + i * bw
        out.append(
            f'<text x="{tx:.1f}" y="{top + ph + 14}" text-anchor="middle">{lo + i * (hi - lo) / _HIST_BINS:.4g}</text>'
        )
    out.append(
        f'<text x="{left + pw / 2:.1f}" y="{height - 6}" text-anchor="middle" opacity="0.75">per-sample score</text>'
    )
    if marker is not None:
        label, value, ci = marker
        mx = x(value)
        text = f"{label} {_fmt(value)}" + (f" [{_fmt(ci[0])}, {_fmt(ci[1])}]" if ci else "")
        anchor = "start" if mx < left + pw * 0.2 else "end" if mx > left + pw * 0.8 else "middle"
        out.append(
            f'<line class="mc-mean" x1="{mx:.1f}" y1="{top - 4}" x2="{mx:.1f}" y2="{top + ph}" stroke="#ea580c" '
            f'stroke-width="2" stroke-dasharray="5 3" data-value="{value!r}"/>'
            f'<text x="{mx:.1f}" y="{top - 8}" text-anchor="{anchor}" fill="#ea580c" font-weight="600">{esc(text)}</text>'
        )
    out.append("</svg>")
    return "".join(out)


def table_value(rows: list[dict[str, Any]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    frame.insert(0, "#", range(len(rows)))
    return frame.round(4)
