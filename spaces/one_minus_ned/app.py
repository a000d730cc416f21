"""Hugging Face Space for 1-NED (ICDAR 2019 scene-text recognition); the UI is
metricore_hf.space, every fact about the metric comes from metricore.registry."""

from metricore.registry import get
from metricore_hf.space import (
    SpaceSpec,
    add_intervals,
    build_app,
    explain,
    launch,
    metric_card,
    spec_examples,
    spec_params,
)

METRIC = get("one_minus_ned")


def score(predictions, references, variant, empty_pair, lowercase, nfkc, confidence=None):
    options = {"empty_pair": empty_pair, "lowercase": lowercase, "nfkc": nfkc}
    r = METRIC.run(variant, predictions, references, **options)
    why = explain(METRIC, variant, predictions, references, options, r)
    rows = [
        {"prediction": p, "best gold": g, "score": s, "distance": d, "why": w}
        for p, g, s, d, w in zip(predictions, r.closest, r.scores, r.distances, why)
    ]
    headline = {"1-NED": r.one_minus_ned, "CER": r.cer}
    return add_intervals(headline, r, {"1-NED": "one_minus_ned", "CER": "cer"}, confidence), rows, r.signature


SPEC = SpaceSpec(
    name="one_minus_ned",
    label="1-NED",
    title=METRIC.title,
    description=METRIC.summary,
    params=spec_params(
        METRIC,
        {
            "empty_pair": {
                "label": "both empty scores",
                "info": "zero: ICDAR 2019 (default); one: empty vs empty is a match",
            },
            "lowercase": {"label": "lowercase"},
            "nfkc": {"label": "NFKC"},
        },
    ),
    examples=spec_examples(METRIC),
    score_fn=score,
    confidence=True,
    card_path=metric_card(__file__, "one_minus_ned"),
)
demo = build_app(SPEC)

if __name__ == "__main__":
    launch(demo)
