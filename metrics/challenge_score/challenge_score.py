"""Combined challenge score (AIJ 2022 FusionBrain Challenge 2.0 and user-defined challenges) as
a Hugging Face `evaluate` metric.

A thin adapter over `metricore.challenge.score_challenge`. One row per task: the prediction
is ``{"task": name, ...the task's inputs}`` (predictions, a given score, embeddings, ...)
and the reference is that task's references (or ``None``). Configs: the built-in challenges
(`fbc2`, the default) and `custom` (a spec at compute time, ``spec=``). See README.md.
"""

from collections.abc import Mapping

import evaluate

from metricore_hf import evaluate_module as hf

_DESCRIPTION = """\
The integral score of a multi-task challenge: each task is scored with its metric (token F1,
exact match, METEOR, 1-NED, ANLS, CLIP + FID, METEOR + CLIP) or given as a score, weighted
and summed, with per-group sums and eligibility against per-task thresholds. Built in: fbc2,
the AIJ 2022 FusionBrain Challenge 2.0 (S = sum of open tasks / 15 + sum of hidden / 10).
"""

_CITATION = """\
@misc{fbc2_aij2022,
  title={FusionBrain Challenge 2.0: AI Journey Contest 2022},
  author={{AI Forever}}, year={2022},
  howpublished={\\url{https://github.com/ai-forever/fbc2_aij2022}}}
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: one row per task: {"task": name, ...inputs}. Inputs: "score" (a given
        score in [0, 1]); or "predictions" (a list, or per-id dicts of typed answer parts
        as in the challenge's files); image_generation: "clip" or "image_embeddings" +
        "text_embeddings", and "fid" or "generated_features" + "real_features";
        meteor_clip: "meteor" or "predictions", and "clip" or the embeddings.
    references: per row, the task's references (a list of gold lists, or per-id dicts of
        typed parts), or None for a task without references.
    missing: "error" (default) or "zero": a task without a row scores 0.
    spec: custom config only: the challenge spec (a mapping, JSON/YAML text or a path).
Returns:
    integral: sum of weight * score over the tasks.
    <group>_sum: the sum of the task scores of each group (fbc2: open_sum, hidden_sum).
    scores: each task's score. eligibility: per task with a threshold, score >= threshold.
    eligible: every threshold reached. tasks: per task details (components, per-item
    scores, source, weight). signature: reproducibility signature.
Examples:
    >>> import metricore_hf
    >>> cs = metricore_hf.load("challenge_score")
    >>> rows = [{"task": t, "score": 1.0} for t in ("TextQA", "MathQA", "ImageGeneration",
    ...         "ImageCaptioning", "VisualQA", "TRitW")]
    >>> r = cs.compute(predictions=rows, references=[None] * 6, missing="zero")
    >>> round(r["integral"], 12), r["open_sum"], r["hidden_sum"]
    (0.4, 6.0, 0.0)
"""


def _plain(value):
    """numpy arrays and scalars as lists and Python numbers (the JSON cache needs them)."""
    if hasattr(value, "tolist") and type(value).__module__ == "numpy":
        return value.tolist()
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return value


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ChallengeScore(hf.CoreMetric):
    METRIC = "challenge_score"
    STORAGE = hf.JSON_FEATURES

    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    KWARGS_DESCRIPTION = _KWARGS_DESCRIPTION
    CODEBASE_URLS = ("https://github.com/ai-forever/fbc2_aij2022",)
    REFERENCE_URLS = ("https://github.com/ai-forever/fbc2_aij2022/blob/main/Metrics_en.md",)

    def _prepare(self, preds, refs, start):
        for i, row in enumerate(preds):
            if not isinstance(row, Mapping) or not isinstance(row.get("task"), str):
                raise TypeError(
                    f"{self.METRIC}: `predictions[{start + i}]` must be a dict with a str 'task' and that "
                    f"task's inputs, got {row!r:.80}"
                )
        return hf.prepare_structured(_plain(preds), _plain(refs), self.METRIC, start)

    def _decode(self, predictions, references):
        return hf.decode_structured(predictions), hf.decode_structured(references)
