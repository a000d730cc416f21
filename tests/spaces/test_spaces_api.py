"""The Spaces, end to end: each ``spaces/<name>/app.py`` is started as ``python app.py`` on a
free loopback port and driven over HTTP with ``gradio_client`` (:mod:`tests.spaces.servers`).

Every row metric of the registry is checked the same way from its spec: each worked example's
``/compute`` headline equals the core's numbers exactly, the rows carry the core's per-item
scores, closest gold, columns and explanations, the UI endpoint reads the example from the
editable table, and bad or too-large inputs give an error message (``AppError``) while the
server keeps serving. Metric-specific checks follow (structured answers, SQuAD dicts, the
COCO toolkit's own scorers, the challenge score's submission).
"""

from __future__ import annotations

import math
import re
import time

import pytest

from metricore import compute_anls, compute_cider, compute_meteor, compute_one_minus_ned, compute_token_f1
from metricore.core.structured import jsonable
from metricore.intervals import confidence_intervals
from metricore.metrics.coco_caption import compute_coco_caption, meteor_1_5_available
from metricore.registry import get, row_metrics

from .servers import ROOT, Servers, needed

gradio_client = pytest.importorskip("gradio_client")
from gradio_client.exceptions import AppError  # noqa: E402

pytestmark = [pytest.mark.space, pytest.mark.xdist_group("spaces-api")]

ROWS = row_metrics()
CHALLENGE = (ROOT / "spaces" / "challenge_score" / "app.py").is_file()
EXAMPLES = [(name, i) for name in ROWS for i in range(len(get(name).examples))]


@pytest.fixture(scope="module")
def servers(request):
    """The apps this run's selected tests need, started together; others on first use.
    METEOR 1.5's paraphrase index is built first if this machine lacks it, as a deployment
    would (a new machine's Space starts without METEOR until its background build is done:
    tests/spaces/test_spaces_limits.py)."""
    if meteor_1_5_available():
        from metricore.metrics.meteor15 import prepare_data

        prepare_data()
    pool = Servers()
    try:
        pool.start(needed(request, [*ROWS, *(["challenge_score"] if CHALLENGE else [])]))
        yield pool
    finally:
        pool.stop()


def _counts(histogram_svg: str) -> list[int]:
    return [int(c) for c in re.search(r'data-counts="([0-9,]*)"', histogram_svg).group(1).split(",")]


def _compute(client, predictions, references, variant="", params=None, confidence=0.0):
    return client.predict(
        predictions=predictions,
        references=references,
        variant=variant,
        params=params or {},
        confidence=confidence,
        api_name="/compute",
    )


def _display(value):
    from metricore_hf.space import display

    return display(value)


# ----------------------------------------------------------------------------- every metric, from its spec


@pytest.mark.filterwarnings("ignore:cider. one image:UserWarning")
@pytest.mark.parametrize("name,index", EXAMPLES, ids=[f"{n}-{i}" for n, i in EXAMPLES])
def test_every_example_equals_the_core(servers, name, index):
    spec = get(name)
    ex = spec.examples[index]
    preds, refs = list(ex.predictions), list(ex.references)
    bound = spec.bind(ex.config, **ex.options)
    core = bound.run(preds, refs)
    from metricore.core.structured import to_json

    tagged = [to_json(x) for x in (preds, refs)]  # tuples travel tagged
    import json

    out = _compute(
        servers[name], json.loads(tagged[0]), json.loads(tagged[1]), ex.config or "", dict(ex.options)
    )
    assert out["headline"] == jsonable(core.headline())
    assert list(out["headline"]) == list(core.headline())
    assert out["signature"] == core.signature
    rows = out["rows"]
    assert [r["score"] for r in rows] == jsonable(core.scores)
    assert [r["why"] for r in rows] == bound.explain(preds, refs, core)
    closest = core.item_closest()
    if closest is not None and any(c is not None for c in closest):
        assert [r[spec.closest_label] for r in rows] == ["" if c is None else _display(c) for c in closest]
    for key, values in core.columns().items():
        if key != "id" and list(values) != list(core.scores):
            assert [r[key] for r in rows] == jsonable(list(values)), key


@pytest.mark.parametrize("name", ROWS)
def test_every_ui_endpoint_scores_the_first_example_from_the_table(servers, name):
    from metricore_hf.space import metric_space
    from metricore_hf.space.builder import _example_inputs

    spec = get(name)
    space = metric_space(name, ROOT / "spaces" / name / "app.py")
    config, source, cells, *values = _example_inputs(space, 0)
    table = {"headers": ["prediction", "references"], "data": cells}
    headline, per_sample, histogram, signature = servers[name].predict(
        config, source, table, "", None, False, *values, api_name="/compute_ui"
    )
    ex = spec.examples[0]
    core = spec.bind(ex.config, **ex.options).run(list(ex.predictions), list(ex.references))
    assert signature == core.signature
    for key, value in core.headline().items():
        assert f'data-key="{key}"' in headline and (f"{value:.4f}" in headline or not math.isfinite(value))
    assert len(per_sample["data"]) == len(ex.predictions)
    assert sum(_counts(histogram)) == len(ex.predictions)


@pytest.mark.parametrize("name", ROWS)
def test_every_space_refuses_bad_requests_with_a_message(servers, name):
    spec = get(name)
    client = servers[name]
    ex = spec.examples[0]
    preds, refs = list(ex.predictions), list(ex.references)
    with pytest.raises(AppError, match=r"2,000 characters per string"):
        _compute(client, ["x" * 2001], ["x"], ex.config or "")
    with pytest.raises(AppError, match=r"5,000 rows"):
        _compute(client, ["a"] * 5001, ["a"] * 5001, ex.config or "")
    with pytest.raises(AppError, match=r"unknown config 'no_such_config'") as info:
        _compute(client, preds, refs, "no_such_config")
    assert "Traceback" not in str(info.value)
    with pytest.raises(AppError, match=r"unknown option\(s\) 'not_an_option'"):
        _compute(client, preds, refs, ex.config or "", {"not_an_option": 1})
    with pytest.raises(AppError, match=r"must be lists"):
        _compute(client, "abc", refs, ex.config or "")
    with pytest.raises(AppError, match=r"`predictions` is empty"):
        _compute(client, [], [], ex.config or "")
    with pytest.raises(AppError, match=r"`confidence` must be a level in \(0, 1\)"):
        _compute(client, preds, refs, ex.config or "", dict(ex.options), 1.5)
    for option in spec.config(ex.config).options:
        if option.type == "bool":
            with pytest.raises(AppError, match=f"option `{option.name}` must be true or false"):
                _compute(client, preds, refs, ex.config or "", {option.name: "no"})
    # still serving
    assert _compute(client, preds, refs, ex.config or "", dict(ex.options))["signature"]


def test_bootstrap_interval_through_the_api(servers):
    preds, refs = ["kitten", "abc", "Хор", "ab", "x"], ["sitting", "abd", "хор", "ba", "x"]
    out = _compute(servers["one_minus_ned"], preds, refs, "", {}, 0.9)
    cis = confidence_intervals(compute_one_minus_ned(preds, refs), confidence=0.9)
    assert out["headline"]["one_minus_ned_ci_low"] == cis["one_minus_ned"].low
    assert out["headline"]["one_minus_ned_ci_high"] == cis["one_minus_ned"].high
    assert (out["headline"]["cer_ci_low"], out["headline"]["cer_ci_high"]) == (
        cis["cer"].low,
        cis["cer"].high,
    )
    assert "one_minus_ned_ci_low" not in _compute(servers["one_minus_ned"], preds, refs)["headline"]  # opt-in


# ----------------------------------------------------------------------------- ANLS


def test_anls_rows_and_ui(servers):
    client = servers["anls"]
    rows = _compute(client, ["CocaCola"], [["Coca Cola", "Coca Cola Company"]])["rows"]
    assert rows == [
        {
            "prediction": "CocaCola",
            "best gold": "Coca Cola",
            "score": pytest.approx(0.8888888888888888),
            "why": "1 edit: insert ' ' @4",
        }
    ]
    table = {
        "headers": ["prediction", "references"],
        "data": [["CocaCola", '["Coca Cola", "Coca Cola Company"]'], ["", ""], ["Hello Wrld", "Hello World"]],
    }
    headline, per_sample, histogram, signature = client.predict(
        "docvqa", "table", table, "", None, False, 0.5, api_name="/compute_ui"
    )
    core = compute_anls(["CocaCola", "Hello Wrld"], [["Coca Cola", "Coca Cola Company"], "Hello World"])
    assert f"{core.anls:.4f}" in headline
    assert [row[1] for row in per_sample["data"]] == ["CocaCola", "Hello Wrld"]
    assert _counts(histogram) == [0] * 8 + [1, 1]
    assert f'data-value="{core.anls!r}"' in histogram  # the headline drawn on the histogram
    assert signature == core.signature
    jsonl = '{"prediction": "x", "references": {"__tuple__": ["x", "y"]}}\n\n{"prediction": null, "references": null}'
    headline, *_ = client.predict(
        "anls_star", "JSONL", table, jsonl, None, False, 0.5, api_name="/compute_ui"
    )
    assert "1.0000" in headline
    with pytest.raises(AppError, match="JSONL line 1: not valid JSON"):
        client.predict(
            "docvqa", "JSONL", table, '{"prediction": "a"', None, False, 0.5, api_name="/compute_ui"
        )
    with pytest.raises(AppError, match=r"JSONL line 1: expected an object"):
        client.predict("docvqa", "JSONL", table, '"a"', None, False, 0.5, api_name="/compute_ui")


def test_anls_structured_answers(servers):
    preds = [{"a": "b", "c": "e"}, {"a": ["b", "c"]}, "CocaCola"]
    refs_tagged = [
        {"a": "b", "c": "d"},
        {"a": ["a", "b", "c"]},
        {"__tuple__": ["Coca Cola", "Coca Cola Company"]},
    ]
    refs = [{"a": "b", "c": "d"}, {"a": ["a", "b", "c"]}, ("Coca Cola", "Coca Cola Company")]
    out = _compute(servers["anls"], preds, refs_tagged, "anls_star")
    assert out["headline"]["anls"] == compute_anls(preds, refs, variant="anls_star").anls
    dude_preds = [["one", "to", "three"], [], "foo"]
    dude_refs = [{"answers": ["one", "two", "three"], "answer_type": "list"}, [], []]
    out = _compute(servers["anls"], dude_preds, dude_refs, "dude")
    assert out["headline"]["anls"] == compute_anls(dude_preds, dude_refs, variant="dude").anls


def test_anls_option_errors(servers):
    client = servers["anls"]
    with pytest.raises(AppError, match=r"must be a str, got int"):
        _compute(client, [1], ["a"])
    with pytest.raises(AppError, match=r"2 predictions but 1 references"):
        _compute(client, ["a", "b"], ["a"])
    with pytest.raises(AppError, match=r"option `threshold` must be in \[0, 1\], got 1.5"):
        _compute(client, ["a"], ["a"], "docvqa", {"threshold": 1.5})
    assert _compute(client, ["a"], ["a"])["headline"] == {"anls": 1.0}  # still serving


# ----------------------------------------------------------------------------- 1-NED


def test_ned_rows_and_infinite_cer(servers):
    preds = ["sitting", "abd", "ba", "Хор", "", "abc"]
    refs = ["kitten", "abc", "ab", ["хор", "x"], "", ""]
    for params in ({}, {"empty_pair": "one", "lowercase": True, "nfkc": True}):
        out = _compute(servers["one_minus_ned"], preds, refs, "", params)
        core = compute_one_minus_ned(preds, refs, **params)
        assert out["headline"] == {"one_minus_ned": core.one_minus_ned, "cer": core.cer}
        assert [r["distance"] for r in out["rows"]] == core.distances
        assert [r["best gold"] for r in out["rows"]] == core.closest
    out = _compute(servers["one_minus_ned"], ["a"], [""])
    assert math.isinf(compute_one_minus_ned(["a"], [""]).cer)
    assert out["headline"] == {"one_minus_ned": 0.0, "cer": "inf"}  # non-finite: one rule everywhere
    with pytest.raises(AppError, match=r"references\[0\]\[1\]: 2,001 characters"):
        _compute(servers["one_minus_ned"], ["a"], [["a", "b" * 2001]])
    with pytest.raises(AppError, match=r"option `empty_pair` must be one of 'zero', 'one'"):
        _compute(servers["one_minus_ned"], ["a"], ["a"], "", {"empty_pair": "maybe"})


# ----------------------------------------------------------------------------- token F1


def test_token_f1_explanations_and_squad_dicts(servers):
    client = servers["token_f1"]
    rows = _compute(client, ["the big cat sat", "", "France"], [["a cat sat down"], [], []], "squad_v2")[
        "rows"
    ]
    assert [(r["best gold"], r["why"]) for r in rows] == [
        ("a cat sat down", "common: cat, sat | pred only: big | gold only: down"),
        ("", "both empty after normalization → 1 (no answer expected, none given)"),
        ("", "no answer expected, answer given → 0 | pred only: france"),
    ]
    assert _compute(client, ["北京大学"], ["北京"], "mlqa", {"language": "zh"})["rows"][0]["why"] == (
        "common: 北, 京 | pred only: 大, 学"
    )
    # Hugging Face SQuAD dicts, matched by id, with the no-answer threshold
    preds = [
        {"id": "a", "prediction_text": "Normans", "no_answer_probability": 0.9},
        {"id": "b", "prediction_text": "", "no_answer_probability": 0.2},
    ]
    refs = [
        {"id": "b", "answers": {"text": [], "answer_start": []}},
        {"id": "a", "answers": {"text": ["The Normans"], "answer_start": [0]}},
    ]
    out = _compute(client, preds, refs, "squad_v2", {"no_answer_threshold": 0.5})
    core = compute_token_f1(preds, refs, variant="squad_v2", no_answer_threshold=0.5)
    assert out["headline"]["f1"] == core.f1 == 50.0 and out["signature"] == core.signature
    assert [r["id"] for r in out["rows"]] == ["b", "a"]
    assert out["rows"][1]["why"].startswith("no_answer_probability 0.9 > threshold")
    with pytest.raises(AppError, match=r"option `language` must be one of"):
        _compute(client, ["a"], ["a"], "mlqa", {"language": "fr"})
    with pytest.raises(AppError, match=r"option `language` is required"):
        _compute(client, ["a"], ["a"], "mlqa")


def test_token_f1_histogram_marks_the_mean_on_the_item_scale(servers):
    from metricore_hf.space import metric_space

    table = {
        "headers": ["prediction", "references"],
        "data": [["the big cat sat", '["a cat sat down"]'], ["Normans", "The Normans"]],
    }
    # the UI endpoint's controls, in the configs' order: percent is not one (interactive=False)
    assert [c.name for c in metric_space("token_f1").controls] == [
        "no_answer_threshold",
        "language",
        "normalizer",
        "min_human_f1",
    ]
    headline, _, histogram, _ = servers["token_f1"].predict(
        "squad", "table", table, "", None, False, 1.0, "en", "squad", 0.4, api_name="/compute_ui"
    )
    core = compute_token_f1(["the big cat sat", "Normans"], [["a cat sat down"], "The Normans"])
    assert f"{core.f1:.4f}" in headline
    assert _counts(histogram) == [0] * 6 + [1, 0, 0, 1]  # per-question F1 in [0, 1]
    assert f'data-value="{core.f1 / 100!r}"' in histogram


# ----------------------------------------------------------------------------- METEOR

NLTK_HYP = "It is a guide to action which ensures that the military always obeys the commands of the party"
NLTK_REF = "It is a guide to action that ensures that the military will forever heed Party commands"


def test_meteor_options_and_rows(servers):
    client = servers["meteor"]
    out = _compute(
        client, [NLTK_HYP], [NLTK_REF], "nltk", {"alpha": 0.5, "beta": 1.0, "gamma": 0.0, "synonyms": "none"}
    )
    core = compute_meteor([NLTK_HYP], [NLTK_REF], alpha=0.5, beta=1.0, gamma=0.0, synonyms="none")
    assert out["headline"] == {"meteor": core.meteor} and out["signature"] == core.signature
    rows = _compute(client, ["A dog runs in the park."], [["a hound is running in a park", "dogs run"]])[
        "rows"
    ]
    assert rows == [
        {
            "prediction": "A dog runs in the park.",
            "best reference": "dogs run",
            "score": 0.75,
            "best_reference": 1,
            "why": "stem: dog→dogs, runs→run | unmatched: a, in, the, park, . | 1 chunk",
        }
    ]
    core = compute_meteor(["3", "три кошки", "three"], [["5"], ["3"], ["3", "two"]], variant="fbc2_vqa")
    assert core.scores == [0.6, 0.0, 1.0]  # "три кошки" vs "3": no number, as the challenge's scorer
    with pytest.raises(AppError, match=r"option `beta` must be in \[0, inf\]"):
        _compute(client, ["a"], ["a"], "nltk", {"beta": -1})
    with pytest.raises(AppError, match=r"`references\[0\]` has no references"):
        _compute(client, ["a"], [[]])
    assert _compute(client, ["cat"], ["cat"])["headline"] == {"meteor": 0.5}  # still serving


# ----------------------------------------------------------------------------- CIDEr

CAPTIONS = ["a cat sits on a mat", "a dog runs", "A man riding a wave on top of a surfboard."]
CAPTION_REFS = [
    ["a cat sits on a mat", "a cat on a mat"],
    ["a dog runs in the park", "a dog in a park"],
    ["A surfer riding a wave.", "a man surfing on a big wave", "Surfer on a surfboard riding a wave"],
]


def test_cider_options_and_why(servers):
    client = servers["cider"]
    out = _compute(client, CAPTIONS, CAPTION_REFS, "cider", {"n": 3, "tokenize": False})
    core = compute_cider(CAPTIONS, CAPTION_REFS, variant="cider", n=3, tokenize=False)
    assert out["headline"] == {"cider": core.cider} and out["signature"] == core.signature
    out = _compute(client, CAPTIONS, CAPTION_REFS, "cider_d", {"sigma": 2.0})
    assert out["headline"] == {"cider": compute_cider(CAPTIONS, CAPTION_REFS, sigma=2.0).cider}
    assert out["rows"][0]["why"] == (
        "shared 1-4-grams: 5/5 · 5/5 · 4/4 · 3/3 | longest: “a cat sits on” | idf 0 (in every image's references): “a”"
    )
    assert out["rows"][0]["references"] == _display(CAPTION_REFS[0])
    with pytest.raises(AppError, match=r"`references\[1\]` has no reference caption"):
        _compute(client, ["a cat", "a dog"], [["a cat"], []])
    with pytest.raises(AppError, match=r"option `n` must be a whole number"):
        _compute(client, ["a cat", "a dog"], ["a cat", "a dog"], "cider_d", {"n": 2.5})


# ----------------------------------------------------------------------------- COCO caption

COCO = get("coco_caption")
#: an empty caption, repeated words and text the PTB tokenizer rewrites (brackets, quotes,
#: contractions, an ellipsis, a no-break space, a tab, a line break)
HOSTILE = (
    ["", "a bird a bird a bird", 'A man (left) can\'t ride "Big Red"...', "Two\u00a0dogs\tplay;\nfetch!"],
    [
        ["a small bird on a branch", "a bird perched on a tree"],
        ["a small bird on a branch", "A bird, perched on a tree."],
        ["A man riding a red horse.", "a man on a big red horse", "Man can't ride [it]"],
        ["two dogs playing fetch", "Dogs play in the grass."],
    ],
)


def _assert_coco_equals_core(out, core, preds):
    assert out["headline"] == core.table  # every key, in the toolkit's order, to the bit
    assert list(out["headline"]) == list(core.table)
    assert out["signature"] == core.signature
    rows = out["rows"]
    assert [r["prediction"] for r in rows] == preds
    assert [r["score"] for r in rows] == core.scores == core.per_image[core.main]
    for key, scores in core.per_image.items():  # every key's per-image score (the main one as `score`)
        assert [r.get(key, r["score"]) for r in rows] == scores, key


def test_coco_caption_first_meteor_request_of_a_new_server(servers):
    """The first request of a fresh server (METEOR 1.5's data and paraphrase index loaded on
    first use; the index is on disk after its first build on this machine) is answered
    within the Space's time limit, with METEOR."""
    from metricore_hf.space import MAX_WORK, TIME_LIMIT

    preds, refs = list(COCO.examples[0].predictions), list(COCO.examples[0].references)
    assert COCO.bind("coco").cost(preds, refs) < MAX_WORK
    start = time.monotonic()
    out = _compute(servers["coco_caption"], preds, refs, "coco")
    assert time.monotonic() - start < TIME_LIMIT
    assert ("METEOR" in out["headline"]) == meteor_1_5_available()
    _assert_coco_equals_core(out, COCO.bind("coco").run(preds, refs), preds)


@pytest.mark.parametrize("config", ["coco", "bleu", "rouge_l"])
def test_coco_caption_hostile_text(servers, config):
    preds, refs = list(HOSTILE[0]), list(HOSTILE[1])
    out = _compute(servers["coco_caption"], preds, refs, config)
    core = COCO.bind(config).run(preds, refs)
    _assert_coco_equals_core(out, core, preds)
    # the empty caption (first) scores 0 on every key, as in the toolkit
    assert all(out["rows"][0].get(key, out["rows"][0]["score"]) == 0.0 for key in out["headline"])


def test_coco_caption_against_pycocoevalcap_scorers(servers):
    """``tokenize=False`` is honoured: the text is scored as given, as the toolkit's own
    ``Bleu(4)``, ``Rouge()`` and ``Cider()`` score it (pycocoevalcap 1.2, pure Python)."""
    bleu_mod = pytest.importorskip("pycocoevalcap.bleu.bleu", reason="pycocoevalcap is not installed")
    rouge_mod = pytest.importorskip("pycocoevalcap.rouge.rouge")
    cider_mod = pytest.importorskip("pycocoevalcap.cider.cider")
    preds, refs = list(HOSTILE[0]), list(HOSTILE[1])
    client = servers["coco_caption"]
    gts = {i: list(r) for i, r in enumerate(refs)}
    res = {i: [p] for i, p in enumerate(preds)}
    bleu, bleu_each = bleu_mod.Bleu(4).compute_score(gts, res, verbose=0)
    rouge, rouge_each = rouge_mod.Rouge().compute_score(gts, res)
    cider, cider_each = cider_mod.Cider().compute_score(gts, res)
    out = _compute(client, preds, refs, "coco", {"tokenize": False, "meteor": False})
    assert list(out["headline"]) == ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "ROUGE_L", "CIDEr"]
    for k in range(4):  # BLEU and ROUGE-L are bit-identical to the toolkit's
        assert out["headline"][f"Bleu_{k + 1}"] == bleu[k]
        assert [r[f"Bleu_{k + 1}"] for r in out["rows"]] == list(bleu_each[k])
    assert out["headline"]["ROUGE_L"] == float(rouge)
    assert [r["ROUGE_L"] for r in out["rows"]] == [float(x) for x in rouge_each]
    assert out["headline"]["CIDEr"] == pytest.approx(float(cider), abs=1e-12)
    assert [r["score"] for r in out["rows"]] == pytest.approx([float(x) for x in cider_each], abs=1e-12)
    assert "tok:none" in out["signature"]
    tokenized = _compute(client, preds, refs, "coco", {"meteor": False})
    assert tokenized["headline"]["Bleu_4"] != out["headline"]["Bleu_4"]
    assert "tok:ptb-corenlp-3.4.1" in tokenized["signature"]
    direct = compute_coco_caption(preds, refs, scorers=("rouge_l",), tokenize=False)
    assert _compute(client, preds, refs, "rouge_l", {"tokenize": False})["headline"] == direct.table


def test_coco_caption_meteor_option(servers):
    client = servers["coco_caption"]
    preds, refs = list(COCO.examples[0].predictions), list(COCO.examples[0].references)
    without = _compute(client, preds, refs, "coco", {"meteor": False})
    assert "METEOR" not in without["headline"] and all("METEOR" not in r for r in without["rows"])
    assert "meteor:" not in without["signature"]
    with_meteor = _compute(client, preds, refs, "coco", {"meteor": True})
    if meteor_1_5_available():
        assert "meteor:1.5-en-norm" in with_meteor["signature"]
        assert {k: v for k, v in with_meteor["headline"].items() if k != "METEOR"} == without["headline"]
    # the option belongs to the `coco` config: the others refuse it
    with pytest.raises(AppError, match=r"unknown option\(s\) 'meteor'"):
        _compute(client, preds, refs, "bleu", {"meteor": True})


# ----------------------------------------------------------------------------- the challenge score


@pytest.mark.skipif(not CHALLENGE, reason="no challenge_score Space in this checkout")
def test_challenge_score_api(servers):
    from metricore.challenge import (
        WHOLE_SUBMISSION_EXAMPLE,
        load_challenge,
        score_challenge,
        score_submission,
    )

    client = servers["challenge_score"]
    out = client.predict(submission=WHOLE_SUBMISSION_EXAMPLE, missing="error", api_name="/compute")
    core = score_submission(**WHOLE_SUBMISSION_EXAMPLE)
    assert out["integral"] == core.integral and out["signature"] == core.signature
    assert out["eligibility"] == core.eligibility
    assert dict(zip(out["columns"]["id"], out["scores"])) == core.task_scores
    partial = {"TextQA": 0.5, "Hidden1": 1.0}
    out = client.predict(submission=partial, missing="zero", api_name="/compute")
    assert out["integral"] == score_challenge(partial, missing="zero").integral
    with pytest.raises(AppError, match="missing task"):
        client.predict(submission=partial, missing="error", api_name="/compute")
    with pytest.raises(AppError, match="option `missing` must be one of 'error', 'zero'"):
        client.predict(submission=partial, missing="maybe", api_name="/compute")
    with pytest.raises(AppError, match="2,000 characters per string"):
        client.predict(
            submission={"TRitW": {"predictions": ["x" * 2001], "references": [["x"]]}}, api_name="/compute"
        )
    with pytest.raises(AppError, match="Unknown key"):
        client.predict(submission={**WHOLE_SUBMISSION_EXAMPLE, "extras": {}}, api_name="/compute")
    tasks = load_challenge("fbc2").task_names
    assert client.predict(submission=dict.fromkeys(tasks, 1.0), api_name="/compute")["eligible"] is True
