"""The shared base of every ``metrics/<name>/<name>.py`` script (Hugging Face ``evaluate``).

The scripts stay thin: they declare their configs, card text and call the core. This base
adds what ``evaluate`` lacks:

* inputs are checked in ``add``/``add_batch`` (so streaming and distributed runs get the
  same clear ``TypeError``/``ValueError`` naming the argument and the absolute row index as
  ``compute`` does) and canonicalised into one column type per config (a bare gold string
  becomes a one-element list; structured answers become tagged JSON text), because the Arrow
  cache needs one schema and would otherwise fail on mixed rows;
* ``compute`` keyword arguments are checked against the config's allowed set;
* every result dict carries the core's reproducibility ``signature``.

The caller's lists are never modified: canonicalisation builds new lists.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import datasets
import evaluate

from metricore.structured import from_json, to_json
from metricore.validation import check_strings, paired_columns, string_alternatives

__all__ = [
    "CoreMetric",
    "STRING_FEATURES",
    "JSON_FEATURES",
    "prepare_strings",
    "prepare_structured",
    "decode_structured",
]

STRING_FEATURES = datasets.Features(
    {
        "predictions": datasets.Value("string"),
        "references": datasets.Sequence(datasets.Value("string")),
    }
)
JSON_FEATURES = datasets.Features(
    {"predictions": datasets.Value("string"), "references": datasets.Value("string")}
)

Preparer = Callable[[list[Any], list[Any], str, int], tuple[list[Any], list[Any]]]


def prepare_strings(preds: list[Any], refs: list[Any], metric: str, start: int) -> tuple[list[str], list[list[str]]]:
    """String predictions; gold alternatives as lists (a bare str is one answer)."""
    return (
        check_strings(preds, metric, "predictions", start),
        [string_alternatives(r, metric, start + i) for i, r in enumerate(refs)],
    )


def prepare_structured(preds: list[Any], refs: list[Any], metric: str, start: int) -> tuple[list[str], list[str]]:
    """Any JSON-like structure (tuples kept) as tagged JSON text, one cell per row."""
    try:
        p = [to_json(x, f"predictions[{start + i}]") for i, x in enumerate(preds)]
        r = [to_json(x, f"references[{start + i}]") for i, x in enumerate(refs)]
    except (TypeError, ValueError) as err:
        raise type(err)(f"{metric}: {err}") from None
    return p, r


def decode_structured(column: Sequence[str]) -> list[Any]:
    return [from_json(x) for x in column]


class CoreMetric(evaluate.Metric):
    """Base class: set ``METRIC``, ``CONFIGS`` (name -> features), ``COMPUTE_KWARGS``
    (config -> allowed keyword names), the card texts (``DESCRIPTION``, ``CITATION``,
    ``KWARGS_DESCRIPTION``, ``CODEBASE_URLS``, ``REFERENCE_URLS``) and implement ``_prepare``
    and ``_compute``."""

    METRIC: str = ""
    CONFIGS: dict[str, datasets.Features] = {}
    COMPUTE_KWARGS: dict[str, frozenset[str]] = {}
    DESCRIPTION: str = ""
    CITATION: str = ""
    KWARGS_DESCRIPTION: str = ""
    CODEBASE_URLS: tuple[str, ...] = ()
    REFERENCE_URLS: tuple[str, ...] = ()

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=self.DESCRIPTION,
            citation=self.CITATION,
            inputs_description=self.KWARGS_DESCRIPTION,
            features=self._features(),
            codebase_urls=list(self.CODEBASE_URLS),
            reference_urls=list(self.REFERENCE_URLS),
        )

    def _checked_config(self) -> str:
        name = "default" if self.config_name in (None, "default") else self.config_name
        if name == "default":
            name = next(iter(self.CONFIGS))
        if name not in self.CONFIGS:
            raise ValueError(
                f"{self.METRIC}: unknown config {self.config_name!r}; "
                f"allowed: {', '.join(repr(c) for c in self.CONFIGS)}"
            )
        return name

    @property
    def variant(self) -> str:
        return self._checked_config()

    def _features(self) -> datasets.Features:
        return self.CONFIGS[self._checked_config()]

    def _prepare(self, preds: list[Any], refs: list[Any], start: int) -> tuple[list[Any], list[Any]]:
        raise NotImplementedError

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Score everything added so far plus ``predictions``/``references``; unknown keyword
        arguments are refused before any cached row is consumed.
        """
        self._check_kwargs(kwargs)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Check, canonicalise and cache a batch of predictions and references.
        """
        preds, refs = paired_columns(predictions, references, self.METRIC)
        if not preds and len(self) == 0:
            raise ValueError(
                f"{self.METRIC}: `predictions` is empty; the mean over zero samples is undefined"
            )
        preds, refs = self._prepare(preds, refs, len(self))
        return super().add_batch(predictions=preds, references=refs, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Check, canonicalise and cache one prediction and its reference.
        """
        preds, refs = self._prepare([prediction], [reference], len(self))
        return super().add(prediction=preds[0], reference=refs[0], **kwargs)

    def _check_kwargs(self, kwargs: dict[str, Any]) -> None:
        allowed = self.COMPUTE_KWARGS.get(self._checked_config(), frozenset())
        unknown = sorted(set(kwargs) - allowed)
        if unknown:
            raise TypeError(
                f"{self.METRIC} ({self._checked_config()}): unexpected keyword(s) {unknown}; "
                f"allowed: {sorted(allowed) or 'none'}"
            )
