"""``compute_metrics`` hooks for ``transformers.Trainer`` / ``Seq2SeqTrainer``.

A :class:`MetricHook` decodes the model's token ids to text, scores it with ``evaluate``
modules (the ``metrics/<name>`` adapters, so the numbers are the core's) and returns flat
numbers that the Trainer logs with its ``eval_`` prefix. It serves both Trainer modes:

* ``batch_eval_metrics=False`` (default): one call with every prediction;
* ``batch_eval_metrics=True``: one call per batch, ``compute_result=False`` until the last;
  each batch is streamed into the modules with ``add_batch`` (nothing is held on the device
  or in the Trainer) and the last call returns ``compute()``. Corpus statistics (CIDEr's
  document frequencies, token F1's QuAC dialogs) see every row.

The Trainer has already gathered the predictions of every device when it calls the hook, so
the hook needs no distributed set-up of its own.

Recipes (each returns a hook): :func:`extractive_qa_hook` (token F1 / exact match, from
generated answers or from a span model's start/end logits), :func:`docvqa_hook` (ANLS),
:func:`captioning_hook` (METEOR and CIDEr-D) and :func:`ocr_hook` (1-NED and CER).

Gold answers: by default the decoded labels (one gold per example). Pass
``references=[...]`` (one entry per evaluation example, in dataset order: a list of gold
alternatives, several reference captions, ...) to score against all of them; the Trainer's
evaluation loader keeps the dataset order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "MetricHook",
    "decode_ids",
    "span_answers",
    "load_metric",
    "extractive_qa_hook",
    "docvqa_hook",
    "captioning_hook",
    "ocr_hook",
]


def load_metric(
    name: str, config: str | None = None, *, source: str | Path | None = None, **kwargs: Any
) -> Any:
    """``evaluate.load`` of one of this project's metrics: by default the script this package
    ships (:func:`metricore_hf.load`); ``source`` is another folder holding ``<name>/<name>.py``
    or a Hub namespace such as ``"my-org"``."""
    import evaluate

    from metricore import registry
    from metricore_hf import load

    if source is None:
        return load(name, config, **kwargs)
    config = registry.get(name).config(config).name  # a clear error for an unknown name or config
    path = str(Path(source, name)) if Path(source, name).is_dir() else f"{source}/{name}"
    return evaluate.load(path, config, **kwargs)


def _array(value: Any) -> np.ndarray:
    if hasattr(value, "detach"):  # a torch tensor (batch_eval_metrics passes them unconverted)
        value = value.detach().cpu().numpy()
    return np.asarray(value)


def decode_ids(ids: Any, tokenizer: Any, *, skip_special_tokens: bool = True) -> list[str]:
    """Token ids (array, tensor or nested lists; -100 padding allowed) as stripped strings.

    Logits (a float array ``[batch, length, vocab]``) are reduced by ``argmax``; a tuple
    (model outputs beside the ids) contributes its first element.
    """
    if isinstance(ids, tuple):
        ids = ids[0]
    arr = _array(ids)
    if arr.dtype.kind == "f" and arr.ndim == 3:
        arr = arr.argmax(-1)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"expected token ids (integers), got an array of {arr.dtype}")
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    # -100 marks label padding, and the Trainer pads batches of different lengths with it
    arr = np.where(arr < 0, pad, arr)
    texts = tokenizer.batch_decode(arr.tolist(), skip_special_tokens=skip_special_tokens)
    return [t.strip() for t in texts]


def span_answers(
    start_logits: Any, end_logits: Any, input_ids: Any, tokenizer: Any, *, max_answer_tokens: int = 30
) -> list[str]:
    """Answers of an extractive (span) QA model: per example, the span ``start <= end <
    start + max_answer_tokens`` with the highest ``start_logit + end_logit``, decoded from
    ``input_ids``. This is the simple form of the SQuAD post-processing; it does not map back
    to character offsets of the original context (use the tokenizer's offset mapping for
    that)."""
    starts, ends, ids = _array(start_logits), _array(end_logits), _array(input_ids)
    out = []
    length = starts.shape[1]
    allowed = np.triu(np.ones((length, length), dtype=bool)) & ~np.triu(
        np.ones((length, length), dtype=bool), k=max_answer_tokens
    )
    for s, e, row in zip(starts, ends, ids):
        scores = np.where(allowed, s[:, None] + e[None, :], -np.inf)
        i, j = np.unravel_index(int(np.argmax(scores)), scores.shape)
        out.append(decode_ids(row[None, i : j + 1], tokenizer)[0])
    return out


def _positions_answers(label_ids: Any, input_ids: Any, tokenizer: Any) -> list[str]:
    starts, ends = (_array(x).reshape(-1) for x in label_ids)
    ids = _array(input_ids)
    return [decode_ids(row[None, s : e + 1], tokenizer)[0] for s, e, row in zip(starts, ends, ids)]


class MetricHook:
    """A ``compute_metrics`` callable: decode, score with ``evaluate`` modules, return numbers.

    Args:
        tokenizer: decodes the predictions and labels (``batch_decode``).
        metrics: name -> loaded ``evaluate`` module.
        compute_kwargs: name -> keyword arguments of that module's ``compute``.
        references: optional gold entries, one per evaluation example in dataset order
            (instead of the decoded labels).
        postprocess: applied to every decoded prediction (e.g. to cut a prompt).
        predictions_from: ``"ids"`` (generated token ids or logits) or ``"spans"`` (a span QA
            model's ``(start_logits, end_logits)``; needs ``include_for_metrics=["inputs"]``,
            and the gold answers are the labelled spans unless ``references`` is given).

    Returns of a call: every numeric headline of every module (``anls``, ``f1``,
    ``meteor``, ...); when two modules share a key, both are prefixed with their name. On
    intermediate batches (``compute_result=False``) an empty dict. ``signatures`` holds the
    modules' reproducibility signatures after the last computation.
    """

    def __init__(
        self,
        tokenizer: Any,
        metrics: Mapping[str, Any],
        *,
        compute_kwargs: Mapping[str, Mapping[str, Any]] | None = None,
        references: Sequence[Any] | None = None,
        postprocess: Callable[[str], str] | None = None,
        predictions_from: str = "ids",
    ) -> None:
        if not metrics:
            raise ValueError("MetricHook: give at least one metric")
        if predictions_from not in ("ids", "spans"):
            raise ValueError(
                f"MetricHook: predictions_from must be 'ids' or 'spans', got {predictions_from!r}"
            )
        unknown = sorted(set(compute_kwargs or {}) - set(metrics))
        if unknown:
            raise ValueError(f"MetricHook: compute_kwargs for unknown metric(s) {unknown}")
        self.tokenizer = tokenizer
        self.metrics = dict(metrics)
        self.compute_kwargs = {k: dict(v) for k, v in (compute_kwargs or {}).items()}
        self.references = None if references is None else list(references)
        self.postprocess = postprocess
        self.predictions_from = predictions_from
        self.signatures: dict[str, str] = {}
        self._seen = 0  # rows streamed so far in this evaluation (batch_eval_metrics)

    def decode(self, eval_pred: Any) -> tuple[list[str], list[Any]]:
        """The prediction strings and gold entries of one call's rows."""
        if self.predictions_from == "spans":
            inputs = eval_pred.inputs
            if inputs is None:
                raise ValueError(
                    "MetricHook(predictions_from='spans') needs the input ids: set "
                    "TrainingArguments(include_for_metrics=['inputs'])"
                )
            ids = inputs["input_ids"] if isinstance(inputs, Mapping) else inputs
            start_logits, end_logits = eval_pred.predictions[:2]
            preds = span_answers(start_logits, end_logits, ids, self.tokenizer)
        else:
            preds = decode_ids(eval_pred.predictions, self.tokenizer)
        if self.postprocess is not None:
            preds = [self.postprocess(p) for p in preds]
        n = len(preds)
        if self.references is not None:
            refs = self.references[self._seen : self._seen + n]
            if len(refs) != n:
                raise ValueError(
                    f"MetricHook: {len(self.references)} references given, but the evaluation has more "
                    f"rows ({self._seen + n} so far); give one entry per evaluation example"
                )
        elif self.predictions_from == "spans":
            inputs = eval_pred.inputs
            ids = inputs["input_ids"] if isinstance(inputs, Mapping) else inputs
            refs = _positions_answers(eval_pred.label_ids, ids, self.tokenizer)
        else:
            refs = decode_ids(eval_pred.label_ids, self.tokenizer)
        return preds, refs

    def __call__(self, eval_pred: Any, compute_result: bool | None = None) -> dict[str, float]:
        preds, refs = self.decode(eval_pred)
        if compute_result is None:  # batch_eval_metrics=False: everything at once
            self._seen = 0
            return self._collect(
                {
                    name: m.compute(predictions=preds, references=refs, **self.compute_kwargs.get(name, {}))
                    for name, m in self.metrics.items()
                }
            )
        for m in self.metrics.values():
            m.add_batch(predictions=preds, references=refs)
        self._seen += len(preds)
        if not compute_result:
            return {}
        self._seen = 0
        return self._collect(
            {name: m.compute(**self.compute_kwargs.get(name, {})) for name, m in self.metrics.items()}
        )

    def _collect(self, results: Mapping[str, Mapping[str, Any]]) -> dict[str, float]:
        numbers: dict[str, dict[str, float]] = {}
        for name, result in results.items():
            self.signatures[name] = result.get("signature", "")
            numbers[name] = {
                k: float(v)
                for k, v in result.items()
                if isinstance(v, (int, float, np.number)) and not isinstance(v, bool)
            }
        counts: dict[str, int] = {}
        for values in numbers.values():
            for k in values:
                counts[k] = counts.get(k, 0) + 1
        out: dict[str, float] = {}
        for name, values in numbers.items():
            for k, v in values.items():
                out[k if counts[k] == 1 else f"{name}_{k}"] = v
        return out


# --------------------------------------------------------------------------------------------
# Recipes
# --------------------------------------------------------------------------------------------


def extractive_qa_hook(
    tokenizer: Any,
    *,
    variant: str = "squad",
    spans: bool = False,
    references: Sequence[Any] | None = None,
    source: str | Path | None = None,
    **compute_kwargs: Any,
) -> MetricHook:
    """Token F1 and exact match (SQuAD rules; ``variant="mlqa"`` with ``language=``...).
    ``spans=True`` for a span model (``AutoModelForQuestionAnswering``): predictions are its
    start/end logits, read back from ``include_for_metrics=["inputs"]``."""
    return MetricHook(
        tokenizer,
        {"token_f1": load_metric("token_f1", variant, source=source)},
        compute_kwargs={"token_f1": compute_kwargs},
        references=references,
        predictions_from="spans" if spans else "ids",
    )


def docvqa_hook(
    tokenizer: Any,
    *,
    variant: str = "docvqa",
    references: Sequence[Any] | None = None,
    source: str | Path | None = None,
    **compute_kwargs: Any,
) -> MetricHook:
    """ANLS of generated answers (generative QA, document VQA); ``threshold=`` to change tau."""
    return MetricHook(
        tokenizer,
        {"anls": load_metric("anls", variant, source=source)},
        compute_kwargs={"anls": compute_kwargs},
        references=references,
    )


def captioning_hook(
    tokenizer: Any,
    *,
    references: Sequence[Any] | None = None,
    source: str | Path | None = None,
) -> MetricHook:
    """METEOR (NLTK) and CIDEr-D of generated captions; give ``references`` (all reference
    captions per image) for CIDEr's consensus to mean anything."""
    return MetricHook(
        tokenizer,
        {"meteor": load_metric("meteor", source=source), "cider": load_metric("cider", source=source)},
        references=references,
    )


def ocr_hook(
    tokenizer: Any,
    *,
    references: Sequence[Any] | None = None,
    source: str | Path | None = None,
    **compute_kwargs: Any,
) -> MetricHook:
    """1-NED and CER of recognised text (``lowercase=``, ``nfkc=``, ``empty_pair=``)."""
    return MetricHook(
        tokenizer,
        {"one_minus_ned": load_metric("one_minus_ned", source=source)},
        compute_kwargs={"one_minus_ned": compute_kwargs},
        references=references,
    )
