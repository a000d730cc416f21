"""Text normalizers: the one home for every answer-cleaning rule.

A normalizer is a small frozen object with one method, ``__call__(text) -> text``, built from
named steps and exposed under a preset name (the style of rouge_score's tokenizers and
jiwer's transformations). Metrics refer to presets; they never re-write the rules inline.

Presets
-------
``rrc``
    Robust Reading Competition answer cleaning used by DocVQA, ST-VQA (PyPI ``anls``),
    DUDE and ANLS*: ``" ".join(s.strip().lower().split())``: case-insensitive, whitespace
    runs collapsed to one space, nothing else touched.
``identity``
    No change (the ICDAR 2019 / deep-text-recognition-benchmark 1-NED default).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

__all__ = ["Normalizer", "NORMALIZERS", "get_normalizer", "rrc_normalize", "rrc_normalize_many"]

Step = Literal["lower", "nfkc", "collapse_whitespace"]


def rrc_normalize(text: str) -> str:
    """``" ".join(text.strip().lower().split())`` as the RRC evaluation scripts write it.

    ``strip()`` is implied by ``split()`` (both use ``str.isspace``), so it is not repeated.
    """
    return " ".join(text.lower().split())


def rrc_normalize_many(texts: list[str]) -> list[str]:
    """:func:`rrc_normalize` over a list, inlined: this is the hot loop of ANLS."""
    return [" ".join(t.lower().split()) for t in texts]


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def _collapse(text: str) -> str:
    return " ".join(text.split())


_STEPS: dict[str, Callable[[str], str]] = {
    "nfkc": _nfkc,
    "lower": str.lower,
    "collapse_whitespace": _collapse,
}


@dataclass(frozen=True)
class Normalizer:
    """Apply ``steps`` in order. ``Normalizer(())`` is the identity."""

    steps: tuple[Step, ...] = ()

    def __post_init__(self) -> None:
        for step in self.steps:
            if step not in _STEPS:
                raise ValueError(
                    f"unknown normalization step {step!r}; allowed: {', '.join(sorted(_STEPS))}"
                )

    def __call__(self, text: str) -> str:
        for step in self.steps:
            text = _STEPS[step](text)
        return text

    def many(self, texts: list[str]) -> list[str]:
        """Normalize a list; the identity returns a copy without calling per item."""
        if not self.steps:
            return list(texts)
        if self.steps == ("lower", "collapse_whitespace"):
            return rrc_normalize_many(texts)
        return [self(t) for t in texts]

    @property
    def name(self) -> str:
        return "+".join(self.steps) or "none"


NORMALIZERS: dict[str, Normalizer] = {
    "rrc": Normalizer(("lower", "collapse_whitespace")),
    "identity": Normalizer(()),
}


def get_normalizer(name: str) -> Normalizer:
    try:
        return NORMALIZERS[name]
    except KeyError:
        raise ValueError(
            f"unknown normalizer {name!r}; allowed: {', '.join(sorted(NORMALIZERS))}"
        ) from None
