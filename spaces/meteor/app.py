"""Hugging Face Space for METEOR (NLTK's, and the FusionBrain Challenge 2.0 captioning and VQA
variants); the UI is metricore_hf.space."""

import importlib

from metricore.metrics.coco_caption import meteor_1_5_available
from metricore.registry import get
from metricore_hf.space import (
    Preparation,
    SpaceSpec,
    add_intervals,
    build_app,
    display,
    explain,
    launch,
    metric_card,
    spec_description,
    spec_examples,
    spec_params,
)

METRIC = get("meteor")
#: METEOR 1.5's paraphrase index (``meteor_1_5``), built once per machine outside any request,
#: on the first request that needs it
METEOR_1_5_DATA = Preparation(
    "METEOR 1.5's language data (its paraphrase index)",
    lambda: importlib.import_module("metricore.metrics.meteor15").prepare_data(),
    lambda: importlib.import_module("metricore.metrics.meteor15").data_prepared(),
)
SYNONYMS = ("wordnet", "auto", "wiki_ru_wordnet", "none")  # `ruwordnet` needs a database a Space lacks


def score(
    predictions,
    references,
    variant,
    alpha=None,
    beta=None,
    gamma=None,
    synonyms=None,
    tokenizer=None,
    lemmatize=None,
    number_words=None,
    confidence=None,
):
    values = {
        "alpha": alpha,
        "beta": beta,
        "gamma": gamma,
        "synonyms": synonyms,
        "tokenizer": tokenizer,
        "lemmatize": lemmatize,  # fbc2_vqa only
        "number_words": number_words,  # fbc2_vqa only
    }
    # the controls of other configs stay hidden but still send values (meteor_1_5 takes none)
    allowed = METRIC.config(variant).option_names
    options = {k: v for k, v in values.items() if v is not None and k in allowed}
    if variant == "meteor_1_5" and meteor_1_5_available():  # else the core says how to install it
        METEOR_1_5_DATA.require()
    try:
        r = METRIC.run(variant, predictions, references, **options)
        why = explain(METRIC, variant, predictions, references, options, r)
    except LookupError as err:  # WordNet or a thesaurus is not installed: show how to get it
        raise ValueError(str(err)) from None
    rows = []
    for p, refs, s, k, w in zip(predictions, r.references, r.scores, r.best_reference, why):
        rows.append(
            {
                "prediction": display(p),
                "best reference": (display(refs[k]) if k >= 0 else "")
                + (f"  (#{k + 1} of {len(refs)})" if len(refs) > 1 else ""),
                "score": s,
                "why": w,
            }
        )
    return add_intervals({"METEOR": r.meteor}, r, {"METEOR": "meteor"}, confidence), rows, r.signature


SPEC = SpaceSpec(
    name="meteor",
    label="METEOR",
    title=METRIC.title,
    description=spec_description(
        METRIC,
        "The `meteor_1_5` variant is the METEOR 1.5 jar of COCO papers (pycocoevalcap), without Java; "
        "the others are not (see the card). The per-sample table shows "
        "the reference that scored best and, under *why*, the alignment with it: the hypothesis words "
        "matched at each stage (`hyp→ref` when the words differ), the unmatched ones and the number of chunks.",
    ),
    variants=METRIC.config_names,
    params=spec_params(
        METRIC,
        {
            "alpha": {"label": "alpha α"},
            "beta": {"label": "beta β", "maximum": 10.0, "step": 0.1},
            "gamma": {"label": "gamma γ"},
            "synonyms": {"choices": SYNONYMS},
        },
    ),
    examples=spec_examples(METRIC),
    score_fn=score,
    confidence=True,
    card_path=metric_card(__file__, "meteor"),
)
demo = build_app(SPEC)

if __name__ == "__main__":
    launch(demo)
