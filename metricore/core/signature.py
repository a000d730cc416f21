"""Reproducibility signatures attached to every result.

Modelled on sacrebleu's ``BLEU|nrefs:1|case:mixed|...|version:2.0.0``: a result is only
comparable with another when their signatures are equal. A signature names the metric, the
variant, every option that differs from its default, the package version and, where they
change the numbers, the versions of backends (e.g. NLTK and WordNet for METEOR).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from metricore._version import __version__

__all__ = ["build_signature"]


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def build_signature(
    metric: str,
    variant: str | None = None,
    options: Mapping[str, Any] | None = None,
    defaults: Mapping[str, Any] | None = None,
    backends: Mapping[str, str] | None = None,
) -> str:
    """Return ``metric|variant:x|opt:val|...|version:V``.

    Options equal to their entry in ``defaults`` are left out, so the signature of a
    default run stays short; options missing from ``defaults`` are always written.
    Options are written in sorted order so equal settings give equal strings.
    """
    parts = [metric]
    if variant is not None:
        parts.append(f"variant:{variant}")
    defaults = defaults or {}
    for key in sorted(options or {}):
        value = options[key]  # type: ignore[index]
        if key in defaults and defaults[key] == value and type(defaults[key]) is type(value):
            continue
        parts.append(f"{key}:{_fmt(value)}")
    for key in sorted(backends or {}):
        parts.append(f"{key}:{backends[key]}")  # type: ignore[index]
    parts.append(f"version:{__version__}")
    return "|".join(parts)
