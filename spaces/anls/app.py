"""Hugging Face Space for ANLS (docvqa, stvqa_paper, anls_star, dude); the UI is metricore_hf.space."""

from metricore import ANLS_VARIANTS, compute_anls
from metricore.text.normalize import rrc_normalize
from metricore_hf.space import (
    Example,
    Param,
    SpaceSpec,
    add_intervals,
    build_app,
    display,
    explain_edits,
    launch,
    metric_card,
)


def why(pred, gold, score, threshold):
    if isinstance(pred, list) and isinstance(gold, str):
        pred = pred[0] if pred else ""  # DUDE: a list for a non-list question counts its first element
    if isinstance(pred, str) and isinstance(gold, str):
        text = explain_edits(rrc_normalize(pred), rrc_normalize(gold))
        return text + (
            f"; similarity under τ={threshold:g} → 0" if score == 0 and text != "exact match" else ""
        )
    if pred == gold:
        return "exact match"
    return {list: "lists matched element to element (Hungarian)", dict: "dicts compared key by key"}.get(
        type(gold), "structures compared leaf by leaf"
    )


def score(predictions, references, variant, threshold, confidence=None):
    r = compute_anls(predictions, references, variant=variant, threshold=threshold)
    rows = [
        {"prediction": display(p), "best gold": display(g), "score": s, "why": why(p, g, s, r.threshold)}
        for p, g, s in zip(predictions, r.closest, r.scores)
    ]
    return add_intervals({"ANLS": r.anls}, r, {"ANLS": "anls"}, confidence), rows, r.signature


SPEC = SpaceSpec(
    name="anls",
    label="ANLS",
    title="ANLS: Average Normalized Levenshtein Similarity",
    description="Document-VQA answer scoring: per question, the normalized Levenshtein similarity to "
    "the closest gold answer, zeroed under the threshold τ, averaged over questions. Variants: "
    + "; ".join(f"`{v.name}`: {v.reference}" for v in ANLS_VARIANTS.values())
    + ".",
    variants=tuple(ANLS_VARIANTS),
    structured_variants=("anls_star", "dude"),
    params=(Param("threshold", "slider", 0.5, label="threshold τ", step=0.05),),
    examples=(
        Example(
            "Gold alternatives (Coca Cola)",
            ["The Coca", "CocaCola", "Coca cola", "Cola", "Cat"],
            [["Coca Cola", "Coca Cola Company"]] * 5,
        ),
        Example(
            "DocVQA-like questions",
            ["  Thomas  Moore ", "$ 1,000", "Hello Wrld", "ITC LIMITED", "1998"],
            [
                ["Thomas More"],
                ["$1,000", "1,000 dollars"],
                ["Hello World"],
                ["itc limited"],
                ["5 March 1998"],
            ],
        ),
        Example("Threshold edge: stvqa_paper", ["ac", "ac   "], [["ab"], ["ab"]], variant="stvqa_paper"),
        Example(
            "ANLS* structured (dicts, lists, tuples)",
            [{"a": "b", "c": "e"}, {"a": ["b", "c"]}, "CocaCola", None],
            [{"a": "b", "c": "d"}, {"a": ["a", "b", "c"]}, ("Coca Cola", "Coca Cola Company"), None],
            variant="anls_star",
        ),
        Example(
            "DUDE lists and not-answerable",
            [["one", "to", "three"], ["a"], [], "foo", "Hello Wrld"],
            [
                {"answers": ["one", "two", "three"], "answer_type": "list/extractive"},
                {"answers": ["a", "a"], "answer_type": "list/extractive"},
                [],
                [],
                ["Hello World"],
            ],
            variant="dude",
        ),
    ),
    score_fn=score,
    confidence=True,
    card_path=metric_card(__file__, "anls"),
)
demo = build_app(SPEC)

if __name__ == "__main__":
    launch(demo)
