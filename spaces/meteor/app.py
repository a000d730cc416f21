"""Hugging Face Space for METEOR (NLTK's, and the FusionBrain Challenge 2.0 captioning and VQA
variants); the UI is metricore_hf.space."""

from metricore import METEOR_VARIANTS, compute_meteor
from metricore.metrics.meteor import explain_meteor
from metricore_hf.space import (
    Example,
    Param,
    SpaceSpec,
    add_intervals,
    build_app,
    display,
    launch,
    metric_card,
)

SYNONYMS = ("wordnet", "auto", "wiki_ru_wordnet", "none")  # `ruwordnet` needs a database a Space lacks
NLTK_HYP = "It is a guide to action which ensures that the military always obeys the commands of the party"
NLTK_REF = "It is a guide to action that ensures that the military will forever heed Party commands"


def score(predictions, references, variant, alpha, beta, gamma, synonyms, lemmatize=None, confidence=None):
    options = {
        "variant": variant,
        "alpha": alpha,
        "beta": beta,
        "gamma": gamma,
        "synonyms": synonyms,
        "lemmatize": lemmatize,
    }
    try:
        r = compute_meteor(predictions, references, **options)
        why = [explain_meteor(p, refs, **options).describe() for p, refs in zip(predictions, references)]
    except LookupError as err:  # WordNet or a thesaurus is not installed: show how to get it
        raise ValueError(str(err)) from None
    rows = []
    for p, refs, s, k, w in zip(predictions, references, r.scores, r.best_reference, why):
        alts = [refs] if isinstance(refs, str) else list(refs)
        rows.append(
            {
                "prediction": display(p),
                "best reference": display(alts[k])
                + (f"  (#{k + 1} of {len(alts)})" if len(alts) > 1 else ""),
                "score": s,
                "why": w,
            }
        )
    return add_intervals({"METEOR": r.meteor}, r, {"METEOR": "meteor"}, confidence), rows, r.signature


SPEC = SpaceSpec(
    name="meteor",
    label="METEOR",
    title="METEOR (NLTK) and the FusionBrain Challenge 2.0 variants",
    description="Words of the hypothesis are aligned with a reference in three stages (exact, stem, "
    "synonym); score = (1 − γ (chunks/matches)^β) · P R / (α P + (1 − α) R), the best over the "
    "references, averaged over samples. This is NLTK's METEOR, **not** the METEOR 1.5 jar of COCO "
    "papers (see the card). Variants: "
    + "; ".join(f"`{v.name}`: {v.reference}" for v in METEOR_VARIANTS.values())
    + ". The per-sample table shows the reference that scored best and, under *why*, the alignment "
    "with it: the hypothesis words matched at each stage (`hyp→ref` when the words differ), the "
    "unmatched ones and the number of chunks.",
    variants=tuple(METEOR_VARIANTS),
    params=(
        Param("alpha", "slider", 0.9, label="alpha α", info="weight of precision vs recall in Fmean"),
        Param(
            "beta",
            "slider",
            3.0,
            label="beta β",
            maximum=10.0,
            step=0.1,
            info="shape of the fragmentation penalty",
        ),
        Param(
            "gamma",
            "slider",
            0.5,
            label="gamma γ",
            info="maximum fragmentation penalty (0: none)",
            variant_defaults=(("fbc2_vqa", 0.0),),
        ),
        Param(
            "synonyms",
            "dropdown",
            "wordnet",
            choices=SYNONYMS,
            info="synonym stage: WordNet 3.0, a Russian thesaurus (auto / wiki_ru_wordnet) or none",
            variant_defaults=(("fbc2_captioning", "auto"), ("fbc2_vqa", "auto")),
        ),
        Param(
            "lemmatize",
            "checkbox",
            True,
            variants=("fbc2_vqa",),
            info="the challenge's pymorphy lemma of the whole answer",
        ),
    ),
    examples=(
        Example("NLTK docstring pair (0.6944)", [NLTK_HYP], [[NLTK_REF]]),
        Example(
            "Stems and WordNet synonyms",
            ["the cat was sat on the mat", "A dog runs in the park."],
            [["the cat sat on the mat"], ["a hound is running in a park", "dogs run"]],
        ),
        Example(
            "Identical sentences keep a penalty (try γ = 0)",
            ["cat", "the cat sat on the mat"],
            ["cat", "the cat sat on the mat"],
        ),
        Example(
            "Russian captioning (fbc2_captioning)",
            ["Рыжий кот сидит на диване.", "Две собаки бегут по пляжу", "кошки играют"],
            [
                ["Рыжая кошка сидит на диване", "Кот на диване"],
                ["Собаки бегают по песчаному пляжу"],
                ["кошка играет"],
            ],
            variant="fbc2_captioning",
        ),
        Example(
            "VQA answers: numbers and Russian (fbc2_vqa)",
            ["3", "три кошки", "three", "красная машина"],
            [["5"], ["3"], ["3", "two"], ["красная машина"]],
            variant="fbc2_vqa",
        ),
    ),
    score_fn=score,
    confidence=True,
    card_path=metric_card(__file__, "meteor"),
)
demo = build_app(SPEC)

if __name__ == "__main__":
    launch(demo)
