"""Hugging Face Space for CIDEr-D (COCO caption evaluation) and plain CIDEr; the UI is
metricore_hf.space."""

from pathlib import Path

from metricore import CIDER_VARIANTS, compute_cider
from metricore.ptb_tokenize import coco_tokenize
from metricore_hf.space import Example, Param, SpaceSpec, build_app, display, launch

REPO = Path(__file__).resolve().parents[2]
LABELS = {"cider_d": "CIDEr-D", "cider": "CIDEr"}
MAX_SHOWN = 5  # idf-0 n-grams listed per image in the "why" column


def _ngrams(words, k):
    return {tuple(words[i:i + k]) for i in range(len(words) - k + 1)}


def shared_ngrams(candidate, references, n, everywhere):
    """'shared 1-4-grams: 5/5 · 3/5 · 2/4 · 1/3 | longest: “a cat sits on”': per order, how many
    distinct candidate n-grams occur in some reference of the image (before tf-idf weighting);
    then the shared ones that carry no weight because every image's references hold them."""
    if not candidate:
        return "empty candidate → 0"
    counts, longest, weightless = [], None, []
    for k in range(1, n + 1):
        cand = _ngrams(candidate, k)
        shared = cand & set().union(*(_ngrams(r, k) for r in references))
        counts.append(f"{len(shared)}/{len(cand)}")
        in_order = [g for g in dict.fromkeys(tuple(candidate[i:i + k]) for i in range(len(candidate))) if g in shared]
        if in_order:
            longest = in_order[0]
        weightless += [g for g in in_order if g in everywhere]
    text = f"shared 1-{n}-grams: " + " · ".join(counts)
    text += f" | longest: “{' '.join(longest)}”" if longest else " | nothing shared"
    if weightless:
        shown = ", ".join(f"“{' '.join(g)}”" for g in weightless[:MAX_SHOWN])
        more = f" (+{len(weightless) - MAX_SHOWN})" if len(weightless) > MAX_SHOWN else ""
        text += f" | idf 0 (in every image's references): {shown}{more}"
    return text


def _in_every_image(ref_words, n):
    """The n-grams (orders 1..n) that the references of every image contain (corpus idf 0)."""
    common = None
    for refs in ref_words:
        grams = set().union(*(_ngrams(r, k) for r in refs for k in range(1, n + 1)))
        common = grams if common is None else common & grams
        if not common:
            return set()
    return common or set()


def score(predictions, references, variant, n, tokenize, sigma=None):
    n = int(n) if isinstance(n, float) and n.is_integer() else n  # a UI slider sends 4.0
    r = compute_cider(predictions, references, variant=variant, n=n, tokenize=tokenize,
                      **({"sigma": sigma} if sigma is not None else {}))
    refs = [[x] if isinstance(x, str) else list(x) for x in references]
    if tokenize:
        cands = [s.split() for s in coco_tokenize(predictions, where="predictions")]
        flat = [s.split() for s in coco_tokenize([x for rs in refs for x in rs], where="references")]
    else:
        cands = [s.split() for s in predictions]
        flat = [x.split() for rs in refs for x in rs]
    per_image, at = [], 0
    for rs in refs:
        per_image.append(flat[at:at + len(rs)])
        at += len(rs)
    if len(predictions) == 1:
        note, everywhere = "one image: every idf is log(1) − log(1) = 0 → 0; score several images | ", set()
    else:
        note, everywhere = "", _in_every_image(per_image, n)
    rows = [
        {"prediction": p, "score": s, "why": note + shared_ngrams(words, ref_words, n, everywhere),
         "references": display(rs)}
        for p, rs, words, ref_words, s in zip(predictions, refs, cands, per_image, r.scores)
    ]
    return {LABELS[variant]: r.cider}, rows, r.signature


SPEC = SpaceSpec(
    name="cider",
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
        Param("n", "slider", 4, label="n (longest n-gram)", minimum=1, maximum=8, step=1,
              info="4 in both reference implementations"),
        Param("tokenize", "checkbox", True, label="PTB tokenization",
              info="pycocoevalcap's PTBTokenizer (lowercase, punctuation dropped); off: split on spaces"),
        Param("sigma", "slider", 6.0, label="sigma σ", minimum=0.5, maximum=20.0, step=0.5, variants=("cider_d",),
              info="width of the Gaussian length penalty"),
    ),
    examples=(
        Example("COCO-style captions (3 images)",
                ["a cat sits on a mat", "a dog runs", "A man riding a wave on top of a surfboard."],
                [["a cat sits on a mat", "a cat on a mat"], ["a dog runs in the park", "a dog in a park"],
                 ["A surfer riding a wave.", "a man surfing on a big wave", "Surfer on a surfboard riding a wave"]]),
        Example("Plain CIDEr on the same captions",
                ["a cat sits on a mat", "a dog runs", "A man riding a wave on top of a surfboard."],
                [["a cat sits on a mat", "a cat on a mat"], ["a dog runs in the park", "a dog in a park"],
                 ["A surfer riding a wave.", "a man surfing on a big wave", "Surfer on a surfboard riding a wave"]],
                variant="cider"),
        Example("Length penalty (CIDEr-D) and repeated words",
                ["a dog", "a cat sleeps on a sofa in the living room next to a big window on a sunny afternoon",
                 "a bird a bird a bird", "a man rides a bike"],
                [["a brown dog plays with a ball", "a dog playing on grass"],
                 ["a cat sleeping on a sofa", "a cat asleep on the couch"],
                 ["a small bird on a branch", "a bird perched on a tree"],
                 ["a man riding a bike down the street", "a cyclist on a road"]]),
        Example("One image alone scores 0 (idf)", ["a cat sits on a mat"], [["a cat sits on a mat"]]),
    ),
    score_fn=score,
    score_range=(0.0, 10.0),
    card_path=REPO / "metrics" / "cider" / "README.md",
)
demo = build_app(SPEC)

if __name__ == "__main__":
    launch(demo)
