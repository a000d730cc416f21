"""Hugging Face Space for 1-NED (ICDAR 2019 scene-text recognition); the UI is metricore_hf.space."""

from metricore import EMPTY_PAIR_POLICIES, compute_one_minus_ned
from metricore.text.normalize import Normalizer
from metricore_hf.space import (
    Example,
    Param,
    SpaceSpec,
    add_intervals,
    build_app,
    explain_edits,
    launch,
    metric_card,
)


def score(predictions, references, variant, empty_pair, lowercase, nfkc, confidence=None):
    r = compute_one_minus_ned(predictions, references, empty_pair=empty_pair, lowercase=lowercase, nfkc=nfkc)
    norm = Normalizer((("nfkc",) if nfkc else ()) + (("lower",) if lowercase else ()))
    rows = []
    for p, g, s, d in zip(predictions, r.closest, r.scores, r.distances):
        if p and g:
            why = explain_edits(norm(p), norm(g))
        else:
            why = (
                f"both empty → {s:g} (empty_pair={empty_pair})"
                if p == g
                else "one side empty → 0 (ICDAR 2019)"
            )
        rows.append({"prediction": p, "best gold": g, "score": s, "distance": d, "why": why})
    headline = {"1-NED": r.one_minus_ned, "CER": r.cer}
    return add_intervals(headline, r, {"1-NED": "one_minus_ned", "CER": "cer"}, confidence), rows, r.signature


SPEC = SpaceSpec(
    name="one_minus_ned",
    label="1-NED",
    title="1-NED: one minus normalized edit distance",
    description="Scene-text recognition score of ICDAR 2019 ReCTS/ArT as coded in clovaai "
    "deep-text-recognition-benchmark: per item 1 - LD(pred, gold) / max(|pred|, |gold|), 0 when either "
    "string is empty, averaged; corpus CER alongside. Several gold strings per item: the best counts.",
    params=(
        Param(
            "empty_pair",
            "dropdown",
            "zero",
            choices=EMPTY_PAIR_POLICIES,
            label="both empty scores",
            info="zero: ICDAR 2019 (default); one: empty vs empty is a match",
        ),
        Param("lowercase", "checkbox", False, label="lowercase", info="compare case-insensitively"),
        Param("nfkc", "checkbox", False, label="NFKC", info="full-width = half-width (ReCTS)"),
    ),
    examples=(
        Example(
            "kitten / sitting and friends", ["sitting", "abd", "ba", "хор"], ["kitten", "abc", "ab", "хор"]
        ),
        Example("Cyrillic case (try lowercase)", ["Хор", "Москва"], ["хор", "москва"]),
        Example("Empty strings (try empty_pair=one)", ["", "abc", ""], ["", "", "abc"]),
        Example(
            "Full-width digits (NFKC)", ["２０１９年", "ＡＢＣ"], ["2019年", "ABC"], params={"nfkc": True}
        ),
    ),
    score_fn=score,
    confidence=True,
    card_path=metric_card(__file__, "one_minus_ned"),
)
demo = build_app(SPEC)

if __name__ == "__main__":
    launch(demo)
