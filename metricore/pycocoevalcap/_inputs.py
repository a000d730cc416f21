"""What every toolkit scorer's ``compute_score(gts, res)`` checks, as clear errors.

``pycocoevalcap`` 1.2's ``Bleu``, ``Rouge`` and ``Cider`` assert ``gts.keys() == res.keys()``
and, per image, ``type(hypo) is list``, ``len(hypo) == 1``, ``type(ref) is list`` and
``len(ref) >= 1``; ``Meteor`` asserts the keys and ``len(res[i]) == 1`` only. Here each of those
is a ``ValueError`` (wrong count, wrong ids) or ``TypeError`` (wrong type) naming the scorer and
the image id, and every caption must be a str (the toolkit fails later, inside its n-gram code
or the jar). The images are taken in ``gts`` order, as every toolkit scorer but SPICE iterates
``gts.keys()``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from metricore.metrics.caption_text import CaptionTexts

__all__ = ["Captions", "positive_int", "positive_number", "scorer_inputs"]


def _what(value: Any) -> str:
    return f"{type(value).__name__} ({value!r:.60})"


def _mapping(value: Any, scorer: str, name: str, holds: str) -> Mapping[Any, Any]:
    if not isinstance(value, Mapping):
        raise TypeError(f"{scorer}: `{name}` must be a dict of image id -> {holds}, got {_what(value)}")
    return value


def _key_difference(gts: Mapping[Any, Any], res: Mapping[Any, Any]) -> str:
    only_gts = [k for k in gts if k not in res]
    only_res = [k for k in res if k not in gts]
    parts = []
    if only_gts:
        parts.append(f"{len(only_gts)} only in gts (first: {only_gts[0]!r})")
    if only_res:
        parts.append(f"{len(only_res)} only in res (first: {only_res[0]!r})")
    return "; ".join(parts)


class Captions:
    """Checked ``gts``/``res``: ``image_ids`` (``gts`` order), ``candidates`` (one per image),
    ``references`` (a list per image); :meth:`texts` for metricore's scorers."""

    __slots__ = ("image_ids", "candidates", "references")

    def __init__(self, image_ids: list[Any], candidates: list[str], references: list[list[str]]) -> None:
        self.image_ids = image_ids
        self.candidates = candidates
        self.references = references

    def texts(self) -> CaptionTexts:
        """The captions as they are (already tokenized, as the toolkit's scorers take them)."""
        counts = np.fromiter(map(len, self.references), np.int64, len(self.references))
        flat = [r for refs in self.references for r in refs]
        return CaptionTexts(self.candidates, flat, counts, self.candidates)


def scorer_inputs(gts: Any, res: Any, scorer: str, *, reference_required: bool = True) -> Captions:
    """The images of ``gts``/``res`` checked as the toolkit's scorer ``scorer`` asserts them
    (module docstring); ``reference_required=False`` lets an image have no reference (the
    toolkit's ``Meteor`` does not assert it)."""
    gts = _mapping(gts, scorer, "gts", "list of reference captions")
    res = _mapping(res, scorer, "res", "list holding one candidate caption")
    if gts.keys() != res.keys():
        raise ValueError(
            f"{scorer}: `gts` and `res` must hold the same image ids (the toolkit asserts "
            f"gts.keys() == res.keys()): {_key_difference(gts, res)}"
        )
    image_ids = list(gts)
    candidates: list[str] = []
    references: list[list[str]] = []
    for img in image_ids:
        hypo, refs = res[img], gts[img]
        if not isinstance(hypo, list):
            raise TypeError(
                f"{scorer}: res[{img!r}] must be a list holding one candidate caption, got {_what(hypo)}"
            )
        if len(hypo) != 1:
            raise ValueError(
                f"{scorer}: res[{img!r}] holds {len(hypo)} candidate captions; the toolkit scores exactly one "
                "per image"
            )
        if not isinstance(hypo[0], str):
            raise TypeError(f"{scorer}: res[{img!r}][0] must be a str, got {_what(hypo[0])}")
        if not isinstance(refs, list):
            raise TypeError(f"{scorer}: gts[{img!r}] must be a list of reference captions, got {_what(refs)}")
        if not refs and reference_required:
            raise ValueError(
                f"{scorer}: gts[{img!r}] is an empty list; the toolkit needs at least one reference caption "
                "per image"
            )
        for j, ref in enumerate(refs):
            if not isinstance(ref, str):
                raise TypeError(f"{scorer}: gts[{img!r}][{j}] must be a str, got {_what(ref)}")
        candidates.append(hypo[0])
        references.append(refs)
    return Captions(image_ids, candidates, references)


def positive_int(value: Any, scorer: str, name: str) -> int:
    """A constructor's n-gram order: an int >= 1."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{scorer}: `{name}` must be an int >= 1, got {_what(value)}")
    if value < 1:
        raise ValueError(f"{scorer}: `{name}` must be >= 1, got {value}")
    return int(value)


def positive_number(value: Any, scorer: str, name: str) -> float:
    """A constructor's positive finite real number."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{scorer}: `{name}` must be a positive number, got {_what(value)}")
    out = float(value)
    if not (out > 0 and math.isfinite(out)):
        raise ValueError(f"{scorer}: `{name}` must be a positive finite number, got {value}")
    return out
