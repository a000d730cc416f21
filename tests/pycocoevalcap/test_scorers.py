"""``metricore.pycocoevalcap``'s scorer classes against the toolkit's own (``pycocoevalcap``
1.2): its pure-Python ``Bleu``, ``Rouge`` and ``Cider`` on the same ``gts``/``res`` dicts (no
Java), its Java ``PTBTokenizer`` on the same ``captions_for_image``; the same numbers, types,
shapes, key order, printed lines and signatures. (``Meteor`` against the jar and ``COCOEvalCap``
are in ``test_harness_parity.py``: each needs the JVM.)"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import io
import random
import subprocess
import tracemalloc
import warnings

import numpy as np
import pytest

from metricore.metrics.coco_caption import meteor_1_5_available
from metricore.pycocoevalcap.bleu.bleu import Bleu
from metricore.pycocoevalcap.cider.cider import Cider
from metricore.pycocoevalcap.meteor.meteor import Meteor
from metricore.pycocoevalcap.rouge.rouge import Rouge
from metricore.pycocoevalcap.spice.spice import Spice
from metricore.pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer
from tests.oracles import java_ptb
from tests.pycocoevalcap.compare import CIDER_TOL, assert_same

toolkit_bleu = pytest.importorskip("pycocoevalcap.bleu.bleu", reason="pycocoevalcap is not installed")
toolkit_rouge = pytest.importorskip("pycocoevalcap.rouge.rouge")
toolkit_cider = pytest.importorskip("pycocoevalcap.cider.cider")
JAVA = pytest.mark.skipif(
    java_ptb.unavailable_reason() is not None, reason=str(java_ptb.unavailable_reason())
)

#: the toolkit's public classes by module path
CLASSES = [
    ("eval", "COCOEvalCap"),
    ("bleu.bleu", "Bleu"),
    ("meteor.meteor", "Meteor"),
    ("rouge.rouge", "Rouge"),
    ("cider.cider", "Cider"),
    ("tokenizer.ptbtokenizer", "PTBTokenizer"),
    ("spice.spice", "Spice"),
]


def _printed(fn, *args, **kwargs):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = fn(*args, **kwargs)
    return result, out.getvalue()


def _random_dicts(rng: random.Random) -> tuple[dict, dict]:
    """Tokenized ``gts``/``res`` as the scorers take them: ids of several kinds, ``res`` in
    another order than ``gts``, 1-7 references, empty captions, repeated words, doubled and
    no-break spaces (which ``str.split`` and ``str.split(" ")`` treat differently)."""
    vocab = [f"w{i}" for i in range(rng.choice([2, 5, 30, 300]))]
    n = rng.choice([1, 2, 3, 8, 40, 150])
    kind = rng.choice(["int", "str", "tuple", "mixed"])

    def key(i: int):
        k = kind if kind != "mixed" else rng.choice(["int", "str", "tuple"])
        return {"int": 10 * i + 3, "str": f"COCO_val2014_{i:012d}.jpg", "tuple": ("video", i)}[k]

    def cap() -> str:
        words = [rng.choice(vocab) for _ in range(rng.choice([0, 1, 2, 3, 5, 8, 13, 25]))]
        if words and rng.random() < 0.2:
            words = words[:1] * len(words)
        return rng.choice([" "] * 8 + ["  ", "\u00a0"]).join(words)

    gts, res = {}, {}
    ids = [key(i) for i in range(n)]
    for i in ids:
        gts[i] = [cap() for _ in range(rng.randint(1, 7))]
    for i in rng.sample(ids, len(ids)):
        r = rng.random()
        res[i] = ["" if r < 0.1 else rng.choice(gts[i]) if r < 0.3 else cap()]
    return gts, res


@pytest.mark.parametrize("seed", range(40))
def test_bleu_rouge_cider_vs_the_toolkit(seed):
    rng = random.Random(seed)
    gts, res = _random_dicts(rng)
    n = rng.choice([1, 2, 3, 4, 4])
    verbose = rng.choice([0, 1, 2])
    theirs, their_print = _printed(toolkit_bleu.Bleu(n).compute_score, gts, res, verbose=verbose)
    ours, our_print = _printed(Bleu(n).compute_score, gts, res, verbose=verbose)
    assert_same(theirs, ours, "Bleu")  # bit-identical
    assert our_print == their_print
    assert_same(toolkit_rouge.Rouge().compute_score(gts, res), Rouge().compute_score(gts, res), "Rouge")
    if any(r.split() for rs in gts.values() for r in rs):  # else the toolkit fails (see below)
        sigma = rng.choice([6.0, 6.0, 3.0, 10])
        theirs_c = toolkit_cider.Cider(sigma=sigma).compute_score(gts, res)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # one image scores 0 silently, as in the toolkit
            ours_c = Cider(sigma=sigma).compute_score(gts, res)
        assert_same(theirs_c, ours_c, "CIDEr", CIDER_TOL)


def test_orders_the_toolkit_cannot_compute():
    """The toolkit's scorers count n-grams up to 4 whatever ``n`` is: ``Bleu(5)`` and
    ``Cider(n=2)`` fail (IndexError), ``Cider(n=5)`` scales every score by 4/5. Here each is a
    ValueError at construction, pointing to the functions that compute other orders."""
    gts, res = _random_dicts(random.Random(1))
    with pytest.raises(IndexError):
        toolkit_bleu.Bleu(5).compute_score(gts, res, verbose=0)
    with pytest.raises(IndexError):
        toolkit_cider.Cider(n=2).compute_score(gts, res)
    four = toolkit_cider.Cider().compute_score(gts, res)[1]
    assert np.allclose(toolkit_cider.Cider(n=5).compute_score(gts, res)[1], four * 4 / 5, rtol=1e-12, atol=0)
    with pytest.raises(ValueError, match=r"Bleu: n=5 fails in pycocoevalcap 1\.2.*compute_bleu"):
        Bleu(5)
    for n in (2, 5):
        with pytest.raises(ValueError, match=rf"CIDEr: n={n} .*compute_cider"):
            Cider(n=n)


def test_rouge_calc_score_and_beta_vs_the_toolkit():
    rng = random.Random(3)
    for _ in range(50):
        gts, res = _random_dicts(rng)
        i = next(iter(gts))
        assert Rouge().calc_score(res[i], gts[i]) == toolkit_rouge.Rouge().calc_score(res[i], gts[i])
    gts, res = _random_dicts(random.Random(9))
    theirs, ours = toolkit_rouge.Rouge(), Rouge()
    theirs.beta = ours.beta = 2.0  # read at each call
    assert_same(theirs.compute_score(gts, res), ours.compute_score(gts, res))


def test_degenerate_calls_as_the_toolkit():
    # no image at all: BLEU's zeros and ROUGE-L's NaN (with NumPy's warning) are the toolkit's
    # answers; CIDEr and METEOR fail there, with a clear ValueError here
    theirs, their_print = _printed(toolkit_bleu.Bleu(4).compute_score, {}, {})
    ours, our_print = _printed(Bleu(4).compute_score, {}, {})
    assert_same(theirs, ours) == 0.0 and our_print == their_print
    with pytest.warns(RuntimeWarning):
        theirs_r = toolkit_rouge.Rouge().compute_score({}, {})
    with pytest.warns(RuntimeWarning):
        assert_same(theirs_r, Rouge().compute_score({}, {}))
    with pytest.raises(ValueError):
        toolkit_cider.Cider().compute_score({}, {})
    with pytest.raises(ValueError, match="CIDEr: `gts` and `res` hold no image"):
        Cider().compute_score({}, {})
    # every reference empty: the toolkit's document frequencies are empty
    gts, res = {1: [""], 2: ["", ""]}, {1: ["a dog"], 2: [""]}
    with pytest.raises(ValueError, match="max"):
        toolkit_cider.Cider().compute_score(gts, res)
    with pytest.raises(ValueError, match="no reference caption of these 2 images has a word"):
        Cider().compute_score(gts, res)
    if meteor_1_5_available():
        with pytest.raises(ValueError, match="METEOR: `gts` and `res` hold no image"):
            Meteor().compute_score({}, {})


def test_same_module_paths_names_and_signatures():
    for path, name in CLASSES:
        theirs = getattr(importlib.import_module(f"pycocoevalcap.{path}"), name)
        ours = getattr(importlib.import_module(f"metricore.pycocoevalcap.{path}"), name)
        for method in ("__init__", "compute_score", "calc_score", "tokenize", "evaluate", "method"):
            if not hasattr(theirs, method) or (name == "Spice" and method == "compute_score"):
                continue  # Spice() itself raises
            want = [
                (p.name, p.default, p.kind)
                for p in inspect.signature(getattr(theirs, method)).parameters.values()
            ]
            got = [
                (p.name, p.default, p.kind)
                for p in inspect.signature(getattr(ours, method)).parameters.values()
                if p.kind is not p.KEYWORD_ONLY  # additions: keyword-only, with defaults
            ]
            if method == "method":  # a staticmethod here: callable on the class as well
                want = want[1:]
            assert got == want, (path, name, method)
    # lmms-eval imports the scorers from the eval module
    evaluation = importlib.import_module("metricore.pycocoevalcap.eval")
    for cls in (Bleu, Cider, Meteor, PTBTokenizer, Rouge, Spice):
        assert getattr(evaluation, cls.__name__) is cls
    toolkit_meteor = importlib.import_module("pycocoevalcap.meteor.meteor").Meteor
    names = {
        Bleu(4).method(): toolkit_bleu.Bleu(4).method(),
        Rouge().method(): toolkit_rouge.Rouge().method(),
        Cider().method(): toolkit_cider.Cider().method(),
        Meteor.method(): toolkit_meteor.method(object()),  # without starting the toolkit's JVM
    }
    assert all(k == v for k, v in names.items())


def test_spice_says_what_it_needs():
    with pytest.raises(NotImplementedError) as err:
        Spice()
    text = str(err.value)
    for needed in ("Java", "Stanford CoreNLP", "downloads", "from pycocoevalcap.spice.spice import Spice"):
        assert needed in text
    assert Spice.method() == "SPICE"


@pytest.mark.skipif(not meteor_1_5_available(), reason="METEOR 1.5 is not installed")
def test_creating_meteor_objects_is_free(monkeypatch):
    """The toolkit's ``Meteor()`` starts a JVM; here seven objects start nothing, allocate almost
    nothing and hold no data (the language data lives once per process, loaded at first use)."""

    def no_process(*args, **kwargs):
        raise AssertionError("Meteor() started a process")

    monkeypatch.setattr(subprocess, "Popen", no_process)
    Meteor()  # the first import of the METEOR 1.5 module is not what is measured
    tracemalloc.start()
    try:
        scorers = [Meteor() for _ in range(7)]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * 1024, peak
    assert all(vars(m) == {} for m in scorers)
    gts, res = {1: ["a man rides a horse"]}, {1: ["a man riding a horse"]}
    first = scorers[0].compute_score(gts, res)
    assert all(m.compute_score(gts, res) == first for m in (*scorers[1:3], Meteor()))


@JAVA
def test_ptb_tokenizer_dicts_vs_the_toolkit(capfd):
    """The same dict shapes as the Java run: ids of any kind in input order, an image without
    a caption left out, empty captions, a line break inside a caption, pycocotools annotation
    dicts with their other keys."""
    toolkit_ptb = importlib.import_module("pycocoevalcap.tokenizer.ptbtokenizer")
    captions = {
        391895: [
            {
                "image_id": 391895,
                "id": 770337,
                "caption": "A man with a red helmet on a small moped on a dirt road. ",
            },
            {
                "image_id": 391895,
                "id": 771687,
                "caption": "Man riding a motor bike on a dirt road on the countryside.",
            },
        ],
        "COCO_val2014_000000522418.jpg": [{"caption": "A woman wearing a net on her head cutting a cake. "}],
        ("video", 3): [{"caption": ""}, {"caption": 'Two dogs\'  "toys"...\nand a U.S. flag'}],
        7: [],
        8: [{"caption": "It's 5:30 p.m. in the U.S."}, {"caption": "The end (really) -- ok?"}],
    }
    theirs = toolkit_ptb.PTBTokenizer().tokenize(captions)
    capfd.readouterr()
    assert_same(theirs, PTBTokenizer().tokenize(captions))
    assert 7 not in theirs
    assert PTBTokenizer().tokenize({}) == {}


def test_ptb_tokenizer_repeated_lists_cost_a_lookup_and_come_back_fresh(monkeypatch):
    module = importlib.import_module("metricore.pycocoevalcap.tokenizer.ptbtokenizer")
    calls = []
    real = module.coco_tokenize
    monkeypatch.setattr(
        module, "coco_tokenize", lambda captions: calls.append(len(captions)) or real(captions)
    )
    module._tokenized.cache_clear()
    captions = {1: [{"caption": "A dog's toy."}], "b": [{"caption": "Two cats"}, {"caption": "The U.S."}]}
    first = PTBTokenizer().tokenize(captions)
    first[1].append("changed by the caller")
    first["b"][0] = "changed"
    again = PTBTokenizer().tokenize(dict(reversed(captions.items())))  # another list: tokenized
    assert PTBTokenizer().tokenize(captions) == {1: ["a dog 's toy"], "b": ["two cats", "the u.s."]}
    assert calls == [3, 3] and again == {"b": ["two cats", "the u.s."], 1: ["a dog 's toy"]}
