"""Hugging Face Space for the COCO caption evaluation table (BLEU-1..4, METEOR 1.5 when
installed, ROUGE-L, CIDEr-D); the UI is metricore_hf.space."""

import warnings

from metricore.metrics.coco_caption import meteor_1_5_available
from metricore.registry import get
from metricore.text.ptb_tokenize import coco_tokenize
from metricore_hf.space import (
    Preparation,
    SpaceSpec,
    add_intervals,
    build_app,
    display,
    launch,
    metric_card,
    spec_description,
    spec_examples,
    spec_params,
)

METRIC = get("coco_caption")
#: METEOR 1.5's paraphrase index, built once per machine from the installed pycocoevalcap
#: files (about a minute): started with the app, outside any request
METEOR_DATA = None
if meteor_1_5_available():
    from metricore.metrics.meteor15 import data_prepared, prepare_data

    METEOR_DATA = Preparation(
        "METEOR 1.5's language data (its paraphrase index)", prepare_data, data_prepared
    )
    METEOR_DATA.start()


def score(predictions, references, variant, tokenize, meteor=None, confidence=None):
    options = {"tokenize": tokenize, **({"meteor": meteor} if meteor is not None else {})}
    if variant == "coco" and meteor is not False and METEOR_DATA is not None and not METEOR_DATA.ready():
        warnings.warn(
            f"{METEOR_DATA.what} is being prepared (once per machine, about a minute): this table has no "
            "METEOR yet; score again shortly",
            stacklevel=2,
        )
        options["meteor"] = False
    r = METRIC.run(variant, predictions, references, **options)
    tokens = coco_tokenize(predictions, where="predictions") if tokenize else predictions
    rows = [
        {
            "prediction": p,
            "score": s,
            **{k: v[i] for k, v in r.per_image.items()},
            "why": f"score = {r.main}; scored tokens: “{t}”" if t else f"score = {r.main}; no tokens (empty)",
            "references": display([x] if isinstance(x, str) else list(x)),
        }
        for i, (p, x, s, t) in enumerate(zip(predictions, references, r.scores, tokens))
    ]
    return add_intervals(r.table, r, {k: k for k in r.table}, confidence), rows, r.signature


SPEC = SpaceSpec(
    name="coco_caption",
    label="COCO caption",
    title=METRIC.title,
    description=spec_description(
        METRIC,
        "CIDEr-D depends on which images are scored together, and BLEU is a corpus number (not a mean of "
        "the per-image BLEU): score the whole test set at once. The per-sample *score* column is CIDEr "
        "(config coco), Bleu_4 (bleu) or ROUGE_L (rouge_l).",
    ),
    variants=METRIC.config_names,
    params=spec_params(
        METRIC,
        {"tokenize": {"label": "PTB tokenization"}, "meteor": {"label": "METEOR 1.5 (when installed)"}},
    ),
    examples=spec_examples(METRIC),
    score_fn=score,
    score_range=(0.0, 10.0),
    plotted=("CIDEr", "Bleu_4", "ROUGE_L"),
    card_path=metric_card(__file__, "coco_caption"),
    confidence=True,
)
demo = build_app(SPEC)

if __name__ == "__main__":
    launch(demo)
