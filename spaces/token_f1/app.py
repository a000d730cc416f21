"""Hugging Face Space for token F1 / exact match (SQuAD v1.1, SQuAD v2.0, MLQA, FusionBrain
TextQA/MathQA, question-level list answers, QuAC); the UI is metricore_hf.space, every fact
about the metric (configs, options, examples, the *why* texts) comes from metricore.registry."""

from metricore.registry import get
from metricore_hf.space import (
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

METRIC = get("token_f1")
SCALE = 100.0  # headline and per-sample numbers on the scripts' (and HF squad's) 0-100 scale


def score(
    predictions,
    references,
    variant,
    language=None,
    no_answer_threshold=None,
    normalizer=None,
    min_human_f1=None,
    confidence=None,
):
    given = {
        "language": language,
        "no_answer_threshold": no_answer_threshold,
        "normalizer": normalizer,
        "min_human_f1": min_human_f1,
    }
    options = {k: v for k, v in given.items() if v is not None}
    r = METRIC.run(variant, predictions, references, **options)
    why = explain(METRIC, variant, predictions, references, options, r)
    rows = []
    for record, w in zip(r.per_item(), why):
        row = {} if record["id"] is None or variant in ("question_level", "quac") else {"id": record["id"]}
        row["prediction"] = display(record["prediction"])
        if variant == "question_level":
            row["gold"] = display(references[record["index"]])
        elif variant == "quac":
            row["dialog"] = record.get("dialog_id")
        else:
            gold, forced = record["closest"], w.startswith("no_answer_probability")
            unanswerable = (
                variant == "squad_v2" and gold == "" and (forced or not r.has_answer[record["index"]])
            )
            row["best gold"] = "(no answer)" if unanswerable else gold
        row.update(
            {"F1": SCALE * record["f1"], "EM": SCALE * record.get("exact_match", record.get("heq", 0.0))}
        )
        row["why"] = w
        rows.append(row)
    if variant == "squad_v2":
        headline = {k: v for k, v in r.squad_v2.items() if not k.endswith("total")}
    elif variant == "question_level":
        headline = {
            "f1": r.f1,
            "precision": r.precision,
            "recall": r.recall,
            "exact_match": r.exact_match,
            "micro_f1": r.micro_f1,
        }
    elif variant == "quac":
        headline = {"f1": r.f1, "heq_q": r.heq_q, "heq_d": r.heq_d}
    else:
        headline = {"exact_match": r.exact_match, "f1": r.f1}
    return add_intervals(headline, r, {k: k for k in headline}, confidence), rows, r.signature


SPEC = SpaceSpec(
    name="token_f1",
    label="Token F1",
    title=METRIC.title,
    description=spec_description(
        METRIC,
        "Shown on the official scripts' 0-100 scale (as Hugging Face `squad`/`squad_v2`). `squad_v2` "
        "takes Hugging Face SQuAD dicts (`id`, `prediction_text`, `no_answer_probability`) through the "
        "API or JSONL for the no-answer threshold. The *why* column lists the tokens (or entities) after "
        "normalization that both sides share and those only one side has.",
    ),
    variants=METRIC.config_names,
    structured_variants=tuple(
        c.name for c in METRIC.configs if c.json_cells and ("text", "alternatives") not in c.inputs
    ),
    params=spec_params(
        METRIC,
        {
            "language": {
                "info": "MLQA normalizer: the language's punctuation and articles; zh: one token per ideograph"
            },
            "no_answer_threshold": {
                "label": "no-answer threshold",
                "info": "questions whose no_answer_probability (SQuAD dict input) is above it count as 'no answer'",
            },
            "normalizer": {"info": "how each entity is normalized before the sets are compared"},
        },
    ),
    examples=spec_examples(METRIC),
    score_fn=score,
    confidence=True,
    score_range=(0.0, 100.0),
    score_column="F1",
    plotted=("f1",),
    card_path=metric_card(__file__, "token_f1"),
)
demo = build_app(SPEC)

if __name__ == "__main__":
    launch(demo)
