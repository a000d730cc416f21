"""The metrics a challenge task can use: each composes the core metrics (none is re-implemented).

A task's input is a mapping. Every metric accepts ``{"score": s}`` (a precomputed score in
[0, 1]); the others take raw inputs, and the composite ones take each of their sub-scores
either precomputed or from raw inputs:

``score``
    Only a given score (hidden tasks).
``token_f1`` (config: a :data:`metricore.metrics.token_f1.TOKEN_F1_VARIANTS` name)
    ``predictions``, ``references`` -> :func:`metricore.compute_token_f1` in [0, 1]. Option
    ``score``: ``"f1"`` or ``"exact_match"`` (default: exact match for a variant whose letter
    fallback is decided on it, ``fbc2_mathqa``, else F1); ``language`` for ``mlqa``.
``meteor`` (config: a :data:`metricore.metrics.meteor.METEOR_VARIANTS` name)
    ``predictions``, ``references`` -> :func:`metricore.compute_meteor`; options: ``alpha``,
    ``beta``, ``gamma``, ``synonyms``, ``tokenizer``, ``lemmatize``.
``one_minus_ned`` (config ``icdar2019``)
    ``predictions``, ``references`` -> :func:`metricore.compute_one_minus_ned`; options:
    ``empty_pair``, ``lowercase``, ``nfkc``.
``anls`` (config: a :data:`metricore.metrics.anls.ANLS_VARIANTS` name)
    ``predictions``, ``references`` -> :func:`metricore.compute_anls`; option ``threshold``.
``image_generation`` (config ``fbc2``)
    ``(CLIP + (fid_cap - min(fid_cap, FID)) / fid_cap) / 2`` (FusionBrain
    ``evaluation/generation/evaluate_fid_clip.py``, fid_cap 200). ``clip``: given, or the
    mean over pairs of :func:`metricore.vision.clip_score.clip_cosine` of ``image_embeddings``
    (generated images) and ``text_embeddings`` (their prompts; ``(n, templates, d)`` is
    averaged over templates). ``fid``: given, or :func:`metricore.vision.fid.fid_from_features` of
    ``generated_features`` and ``real_features``. Options: ``fid_cap`` (default 200),
    ``clip``: ``"cosine"`` (the challenge's plain cosine, default) or ``"clip_score"``
    (Hessel et al.'s ``2.5 max(cos, 0)``). Optional ``ids`` (the sample ids, set by
    :func:`~metricore.challenge.split_submission`): per-id embedding dicts must match them.
``meteor_clip`` (config: a METEOR variant, ``fbc2_captioning`` for the challenge)
    ``(METEOR + CLIP) / 2`` (``evaluation/captioning/evaluate_ruclip_meteor.py``).
    ``meteor``: given, or from ``predictions``/``references``; ``clip``: given, or from
    ``image_embeddings`` (the input images) and ``text_embeddings`` (the predicted captions),
    one row per caption (or per-id dicts, matched with the predictions' ids).

A computed CLIP cosine can be negative, so an ``image_generation``/``meteor_clip`` score can
be below 0 (the challenge does not clip it); given scores must lie in [0, 1].
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from metricore import registry
from metricore.challenge.layout import fail, text_columns
from metricore.core.validation import check_choice, check_number
from metricore.metrics.anls import compute_anls
from metricore.metrics.meteor import compute_meteor
from metricore.metrics.ned import compute_one_minus_ned
from metricore.metrics.token_f1 import TOKEN_F1_VARIANTS, compute_token_f1
from metricore.vision.clip_score import CLIP_S_WEIGHT, clip_cosine, clip_score
from metricore.vision.fid import fid_from_features

__all__ = ["TaskMetric", "TaskOutcome", "TASK_METRICS", "check_task_options", "given_number"]

_METRIC = "challenge_score"
DEFAULT_FID_CAP = 200.0
CLIP_KINDS = ("cosine", "clip_score")


@dataclass(frozen=True)
class TaskOutcome:
    """One task's score and what it is made of."""

    score: float
    #: sub-scores (e.g. ``{"meteor": .., "clip": ..}``; for a plain metric its headline)
    components: dict[str, float]
    n: int | None = None
    ids: list[str] | None = None
    item_scores: list[float] | None = None
    #: signatures of the core metrics that produced the numbers
    signatures: dict[str, str] = field(default_factory=dict)


Scorer = Callable[[str, str, Mapping[str, Any], Mapping[str, Any]], TaskOutcome]


@dataclass(frozen=True)
class TaskMetric:
    """A metric a challenge task can name: its configs (the first is the default), the
    options a spec may set, the raw input fields and the sub-scores that may be given."""

    name: str
    description: str
    configs: tuple[str, ...]
    options: frozenset[str]
    inputs: frozenset[str]
    components: tuple[str, ...]
    scorer: Scorer | None


def given_number(task: str, name: str, value: Any, lo: float, hi: float) -> float:
    """A given (sub-)score, checked to be a number in ``[lo, hi]``."""
    return check_number(value, f"{_METRIC}: task {task!r}", name, lo, hi)


@contextmanager
def _as_task(task: str) -> Iterator[None]:
    """Re-raise a core metric's input error with the task named first."""
    try:
        yield
    except (TypeError, ValueError) as err:
        message = str(err)
        if message.startswith(f"{_METRIC}:"):
            raise
        # not type(err)(message): a subclass such as UnicodeEncodeError takes five arguments
        kind = TypeError if isinstance(err, TypeError) else ValueError
        raise kind(f"{_METRIC}: task {task!r}: {message}") from None


def _need(task: str, data: Mapping[str, Any], component: str, raw: tuple[str, ...]) -> bool:
    """True when ``component`` is given; False when all of its ``raw`` inputs are."""
    present = [k for k in raw if k in data]
    if component in data:
        if present:
            raise fail(task, f"give either `{component}` or {_fields(raw)}, not both")
        return True
    if len(present) != len(raw):
        missing = [k for k in raw if k not in data]
        raise fail(task, f"needs `{component}` or {_fields(raw)} (missing {_fields(tuple(missing))})")
    return False


def _fields(names: tuple[str, ...]) -> str:
    return " + ".join(f"`{n}`" for n in names)


# --------------------------------------------------------------------------------------------
# Plain text metrics
# --------------------------------------------------------------------------------------------


def _token_f1(task: str, config: str, options: Mapping[str, Any], data: Mapping[str, Any]) -> TaskOutcome:
    ids, preds, golds = text_columns(data["predictions"], data["references"], task)
    opts = dict(options)
    key = opts.pop("score", _default_token_score(config))
    with _as_task(task):
        r = compute_token_f1(preds, golds, variant=config, percent=False, **opts)
    items = r.exact_match_scores if key == "exact_match" else r.f1_scores
    score = r.exact_match if key == "exact_match" else r.f1
    return TaskOutcome(score, {key: score}, len(items), ids, list(items), {"token_f1": r.signature})


def _default_token_score(config: str) -> str:
    spec = TOKEN_F1_VARIANTS.get(config)
    return "exact_match" if spec is not None and spec.letter_fallback == "exact_match" else "f1"


def _meteor(task: str, config: str, options: Mapping[str, Any], data: Mapping[str, Any]) -> TaskOutcome:
    ids, preds, golds = text_columns(data["predictions"], data["references"], task)
    with _as_task(task):
        r = compute_meteor(preds, golds, variant=config, **options)
    return TaskOutcome(
        r.meteor, {"meteor": r.meteor}, len(r.scores), ids, list(r.scores), {"meteor": r.signature}
    )


def _ned(task: str, config: str, options: Mapping[str, Any], data: Mapping[str, Any]) -> TaskOutcome:
    ids, preds, golds = text_columns(data["predictions"], data["references"], task)
    with _as_task(task):
        r = compute_one_minus_ned(preds, golds, **options)
    return TaskOutcome(
        r.one_minus_ned,
        {"one_minus_ned": r.one_minus_ned},
        len(r.scores),
        ids,
        list(r.scores),
        {"one_minus_ned": r.signature},
    )


def _anls(task: str, config: str, options: Mapping[str, Any], data: Mapping[str, Any]) -> TaskOutcome:
    ids: list[str] | None
    if registry.get("anls").config(config).json_cells:  # structured answers go to the core as they are
        ids, preds, golds = None, data["predictions"], data["references"]
    else:
        ids, preds, golds = text_columns(data["predictions"], data["references"], task)
    with _as_task(task):
        r = compute_anls(preds, golds, variant=config, **options)
    return TaskOutcome(r.anls, {"anls": r.anls}, len(r.scores), ids, list(r.scores), {"anls": r.signature})


# --------------------------------------------------------------------------------------------
# CLIP and FID (metricore.vision.clip_score, metricore.vision.fid)
# --------------------------------------------------------------------------------------------


def _rows(value: Any, task: str, name: str, ids: list[str] | None) -> tuple[Any, list[str] | None]:
    """An embedding column: an array-like (row order = item order) or a per-id dict (rows
    arranged in ``ids`` order; without ``ids`` the dict's own order defines them)."""
    if not isinstance(value, Mapping):
        return value, ids
    keys = [str(k) for k in value]
    by_id = {str(k): v for k, v in value.items()}
    if ids is None:
        return [by_id[k] for k in keys], keys
    missing = [i for i in ids if i not in by_id]
    extra = [k for k in keys if k not in set(ids)]
    if missing or extra:
        what = []
        if missing:
            what.append(f"no row for id(s) {', '.join(map(repr, missing[:5]))}")
        if extra:
            what.append(f"id(s) {', '.join(map(repr, extra[:5]))} are not scored")
        raise fail(task, f"mismatched ids in `{name}`: " + "; ".join(what))
    return [by_id[i] for i in ids], ids


def _clip(
    task: str, data: Mapping[str, Any], kind: str, ids: list[str] | None, n: int | None
) -> tuple[float, list[float] | None, list[str] | None, dict[str, str]]:
    """(mean CLIP, per-pair values, ids, signatures) from the given ``clip`` or embeddings."""
    if _need(task, data, "clip", ("image_embeddings", "text_embeddings")):
        hi = CLIP_S_WEIGHT if kind == "clip_score" else 1.0
        lo = 0.0 if kind == "clip_score" else -1.0
        return given_number(task, "clip", data["clip"], lo, hi), None, ids, {}
    images, ids = _rows(data["image_embeddings"], task, "image_embeddings", ids)
    texts, ids = _rows(data["text_embeddings"], task, "text_embeddings", ids)
    with _as_task(task):
        fn = clip_score if kind == "clip_score" else clip_cosine
        per_pair = np.asarray(fn(images, texts), dtype=np.float64)
    if n is not None and len(per_pair) != n:
        raise fail(task, f"mismatched lengths: {len(per_pair)} embedding pairs for {n} predictions")
    values = per_pair.astype(np.float64).tolist()
    return float(np.mean(per_pair)), values, ids, {"clip": f"clip|{kind}"}


def _fid(task: str, data: Mapping[str, Any]) -> float:
    if _need(task, data, "fid", ("generated_features", "real_features")):
        return given_number(task, "fid", data["fid"], 0.0, math.inf)
    with _as_task(task):
        value = float(fid_from_features(data["generated_features"], data["real_features"]))
    return value


def _sample_ids(task: str, value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, (list, tuple)):
        raise fail(task, f"`ids` must be a list of sample ids, got {type(value).__name__}", TypeError)
    ids = [str(i) for i in value]
    if len(set(ids)) != len(ids):
        raise fail(task, "`ids` has duplicates")
    return ids


def _image_generation(
    task: str, config: str, options: Mapping[str, Any], data: Mapping[str, Any]
) -> TaskOutcome:
    cap = float(options.get("fid_cap", DEFAULT_FID_CAP))
    kind = options.get("clip", "cosine")
    ids = _sample_ids(task, data.get("ids"))
    clip, items, ids, sigs = _clip(task, data, kind, ids, None if ids is None else len(ids))
    fid = _fid(task, data)
    score = (clip + (cap - min(cap, fid)) / cap) / 2
    sigs = dict(sigs)
    if "generated_features" in data:
        sigs["fid"] = "fid|pytorch-fid formula"
    return TaskOutcome(
        score, {"clip": clip, "fid": fid}, None if items is None else len(items), ids, items, sigs
    )


def _meteor_clip(task: str, config: str, options: Mapping[str, Any], data: Mapping[str, Any]) -> TaskOutcome:
    opts = dict(options)
    kind = opts.pop("clip", "cosine")
    sigs: dict[str, str] = {}
    ids: list[str] | None = None
    n: int | None = None
    if _need(task, data, "meteor", ("predictions", "references")):
        meteor = given_number(task, "meteor", data["meteor"], 0.0, 1.0)
        meteor_items = None
    else:
        ids, preds, golds = text_columns(data["predictions"], data["references"], task)
        with _as_task(task):
            r = compute_meteor(preds, golds, variant=config, **opts)
        meteor, meteor_items, n = r.meteor, list(r.scores), len(r.scores)
        sigs["meteor"] = r.signature
    clip, clip_items, ids, clip_sigs = _clip(task, data, kind, ids, n)
    sigs.update(clip_sigs)
    items = None
    if meteor_items is not None and clip_items is not None:
        items = [(m + c) / 2 for m, c in zip(meteor_items, clip_items)]
    n_items = n if n is not None else (None if clip_items is None else len(clip_items))
    return TaskOutcome((meteor + clip) / 2, {"meteor": meteor, "clip": clip}, n_items, ids, items, sigs)


# --------------------------------------------------------------------------------------------
# Registry and option checks
# --------------------------------------------------------------------------------------------

_TEXT = frozenset({"predictions", "references"})
#: options a challenge task adds to its metric's, and those it does not take (a task score is
#: always in [0, 1])
_TASK_OPTIONS = {"token_f1": frozenset({"score"})}
_NOT_IN_TASKS = frozenset({"percent"})
#: configs of a metric that a task cannot use (their inputs are not prediction/reference texts)
_NOT_TASK_CONFIGS = {"token_f1": ("question_level", "quac")}


def _plain_metric(name: str, scorer: Scorer) -> TaskMetric:
    """A task metric that scores raw text with a core metric: configs and options from its spec."""
    spec = registry.get(name)
    configs = tuple(c for c in spec.configs if c.name not in _NOT_TASK_CONFIGS.get(name, ()))
    options = frozenset().union(*(c.option_names for c in configs)) - _NOT_IN_TASKS
    description = f"{spec.title} (metricore.registry.get({name!r}))"
    return TaskMetric(
        name,
        description,
        tuple(c.name for c in configs),
        options | _TASK_OPTIONS.get(name, frozenset()),
        _TEXT,
        (),
        scorer,
    )


def _meteor_options() -> frozenset[str]:
    return _plain_metric("meteor", _meteor).options


TASK_METRICS: dict[str, TaskMetric] = {
    m.name: m
    for m in (
        TaskMetric(
            "score", "a precomputed score in [0, 1] (hidden tasks)", (), frozenset(), frozenset(), (), None
        ),
        _plain_metric("token_f1", _token_f1),
        _plain_metric("meteor", _meteor),
        _plain_metric("one_minus_ned", _ned),
        _plain_metric("anls", _anls),
        TaskMetric(
            "image_generation",
            "(CLIP + (fid_cap - min(fid_cap, FID)) / fid_cap) / 2",
            ("fbc2",),
            frozenset({"fid_cap", "clip"}),
            frozenset({"image_embeddings", "text_embeddings", "generated_features", "real_features", "ids"}),
            ("clip", "fid"),
            _image_generation,
        ),
        TaskMetric(
            "meteor_clip",
            "(METEOR + CLIP) / 2",
            ("fbc2_captioning",)
            + tuple(v for v in registry.get("meteor").config_names if v != "fbc2_captioning"),
            _meteor_options() | {"clip"},
            _TEXT | {"image_embeddings", "text_embeddings"},
            ("meteor", "clip"),
            _meteor_clip,
        ),
    )
}


def check_task_options(task: str, metric: TaskMetric, config: str, options: Mapping[str, Any]) -> None:
    """Refuse options the metric does not take, and check the values this module reads
    itself (the core metrics check theirs when scoring, errors naming the task)."""
    unknown = sorted(set(options) - metric.options)
    if unknown:
        allowed = ", ".join(repr(o) for o in sorted(metric.options)) or "none"
        raise fail(
            task,
            f"unknown option(s) {', '.join(map(repr, unknown))} for metric {metric.name!r}; allowed: {allowed}",
        )
    where = f"{_METRIC}: task {task!r}"
    if "score" in options:
        check_choice(options["score"], ("f1", "exact_match"), where, "value of option `score`")
    if "clip" in options:
        check_choice(options["clip"], CLIP_KINDS, where, "value of option `clip`")
    if "fid_cap" in options:
        cap = check_number(options["fid_cap"], where, "options.fid_cap", 0.0, math.inf)
        if cap <= 0 or math.isinf(cap):
            raise fail(task, f"`options.fid_cap` must be a positive finite number, got {cap}")
    if "language" in options and "language" not in registry.get("token_f1").config(config).option_names:
        raise fail(task, f"option `language` is only used by the 'mlqa' config, not {config!r}")
