"""Hugging Face Space for CIDEr-D (COCO caption evaluation) and plain CIDEr; the UI is
metricore_hf.space."""

from metricore import CIDER_VARIANTS, compute_cider
from metricore.metrics.cider import explain_cider
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

LABELS = {"cider_d": "CIDEr-D", "cider": "CIDEr"}


def score(predictions, references, variant, n, tokenize, sigma=None, confidence=None):
    n = int(n) if isinstance(n, float) and n.is_integer() else n  # a UI slider sends 4.0
    r = compute_cider(
        predictions,
        references,
        variant=variant,
        n=n,
        tokenize=tokenize,
        **({"sigma": sigma} if sigma is not None else {}),
    )
    refs = [[x] if isinstance(x, str) else list(x) for x in references]
    note = (
        "one image: every idf is log(1) − log(1) = 0 → 0; score several images | "
        if len(predictions) == 1
        else ""
    )
    rows = [
        {"prediction": p, "score": s, "why": note + e.describe(), "references": display(rs)}
        for p, rs, s, e in zip(
            predictions, refs, r.scores, explain_cider(predictions, refs, n=n, tokenize=tokenize)
        )
    ]
    label = LABELS[variant]
    return add_intervals({label: r.cider}, r, {label: "cider"}, confidence), rows, r.signature


SPEC = SpaceSpec(
    name="cider",
    label="CIDEr",
    title="CIDEr-D and CIDEr: consensus-based caption evaluation",
    description="Each caption becomes tf-idf weighted n-gram vectors (n = 1..4; document frequencies "
    "over the references of the images scored together); per image, 10 × the mean over n and over "
    "the references of their cosine similarity, averaged over images (0-10 scale). Variants: "
    + "; ".join(f"`{v.name}`: {v.reference}" for v in CIDER_VARIANTS.values())
    + ". Scores depend on which images are scored together: score the whole test set at once. "
    "The *why* column counts the candidate's n-grams (after PTB tokenization) that some reference "
    "of the image contains, before tf-idf weighting, clipping and the length penalty.",
    variants=tuple(CIDER_VARIANTS),
    params=(
        Param(
            "n",
            "slider",
            4,
            label="n (longest n-gram)",
            minimum=1,
            maximum=8,
            step=1,
            info="4 in both reference implementations",
        ),
        Param(
            "tokenize",
            "checkbox",
            True,
            label="PTB tokenization",
            info="pycocoevalcap's PTBTokenizer (lowercase, punctuation dropped); off: split on spaces",
        ),
        Param(
            "sigma",
            "slider",
            6.0,
            label="sigma σ",
            minimum=0.5,
            maximum=20.0,
            step=0.5,
            variants=("cider_d",),
            info="width of the Gaussian length penalty",
        ),
    ),
    examples=(
        Example(
            "COCO-style captions (3 images)",
            ["a cat sits on a mat", "a dog runs", "A man riding a wave on top of a surfboard."],
            [
                ["a cat sits on a mat", "a cat on a mat"],
                ["a dog runs in the park", "a dog in a park"],
                [
                    "A surfer riding a wave.",
                    "a man surfing on a big wave",
                    "Surfer on a surfboard riding a wave",
                ],
            ],
        ),
        Example(
            "Plain CIDEr on the same captions",
            ["a cat sits on a mat", "a dog runs", "A man riding a wave on top of a surfboard."],
            [
                ["a cat sits on a mat", "a cat on a mat"],
                ["a dog runs in the park", "a dog in a park"],
                [
                    "A surfer riding a wave.",
                    "a man surfing on a big wave",
                    "Surfer on a surfboard riding a wave",
                ],
            ],
            variant="cider",
        ),
        Example(
            "Length penalty (CIDEr-D) and repeated words",
            [
                "a dog",
                "a cat sleeps on a sofa in the living room next to a big window on a sunny afternoon",
                "a bird a bird a bird",
                "a man rides a bike",
            ],
            [
                ["a brown dog plays with a ball", "a dog playing on grass"],
                ["a cat sleeping on a sofa", "a cat asleep on the couch"],
                ["a small bird on a branch", "a bird perched on a tree"],
                ["a man riding a bike down the street", "a cyclist on a road"],
            ],
        ),
        Example("One image alone scores 0 (idf)", ["a cat sits on a mat"], [["a cat sits on a mat"]]),
    ),
    score_fn=score,
    confidence=True,
    score_range=(0.0, 10.0),
    card_path=metric_card(__file__, "cider"),
)
demo = build_app(SPEC)

if __name__ == "__main__":
    launch(demo)
