"""The Spaces, end to end: each ``spaces/<name>/app.py`` is started as ``python app.py`` on a
free loopback port and driven over HTTP with ``gradio_client``.

Checks: the ``/compute`` headline equals the core's number exactly, per-sample rows come back,
the UI endpoint reads the editable table and JSONL, and bad or too-large inputs give an error
message (``AppError``) while the server keeps serving. Nothing leaves 127.0.0.1: analytics and
the Hub are switched off, the Gradio share tunnel is never requested.
"""

from __future__ import annotations

import math
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from metricore import (
    compute_anls,
    compute_cider,
    compute_meteor,
    compute_one_minus_ned,
    compute_question_level,
    compute_token_f1,
)
from metricore.intervals import confidence_intervals
from metricore.metrics.coco_caption import compute_coco_caption, meteor_1_5_available
from metricore.registry import get as get_metric

gradio_client = pytest.importorskip("gradio_client")
from gradio_client.exceptions import AppError  # noqa: E402

pytestmark = pytest.mark.space

ROOT = Path(__file__).resolve().parents[2]
APPS = ("anls", "one_minus_ned", "token_f1", "meteor", "cider", "coco_caption")
CHALLENGE = (ROOT / "spaces" / "challenge_score" / "app.py").is_file()
START_TIMEOUT = 240.0  # seven servers import gradio at once on a small, shared machine
HOST = "127.0.0.1"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _offline_env(port: int) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        GRADIO_SERVER_NAME=HOST,
        GRADIO_SERVER_PORT=str(port),
        GRADIO_ANALYTICS_ENABLED="False",
        GRADIO_SSR_MODE="False",
        HF_HUB_OFFLINE="1",
        HF_HUB_DISABLE_TELEMETRY="1",
        NO_PROXY=f"{HOST},localhost",
        no_proxy=f"{HOST},localhost",
        PYTHONUNBUFFERED="1",
    )
    return env


def _wait_ready(url: str, proc: subprocess.Popen, log: Path, deadline: float) -> None:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{url} exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with opener.open(url + "gradio_api/info", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.25)
    raise RuntimeError(f"{url} did not start within {START_TIMEOUT} s:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="module")
def servers():
    """Start every app at once (imports run in parallel), yield ``{name: Client}``, stop them.
    METEOR 1.5's paraphrase index is built first if this machine lacks it, as a deployment
    would (a new machine's Space starts without METEOR until its background build is done:
    tests/spaces/test_spaces_limits.py)."""
    if meteor_1_5_available():
        from metricore.metrics.meteor15 import prepare_data

        prepare_data()
    logs = Path(tempfile.mkdtemp(prefix="metricore-spaces-"))
    procs: dict[str, tuple[subprocess.Popen, str, Path]] = {}
    try:
        for name in APPS + (("challenge_score",) if CHALLENGE else ()):
            port = _free_port()
            log = logs / f"{name}.log"
            with open(log, "wb") as out:
                proc = subprocess.Popen(
                    [sys.executable, str(ROOT / "spaces" / name / "app.py")],
                    cwd=ROOT,
                    env=_offline_env(port),
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            procs[name] = (proc, f"http://{HOST}:{port}/", log)
        deadline = time.monotonic() + START_TIMEOUT
        for proc, url, log in procs.values():
            _wait_ready(url, proc, log, deadline)
        yield {name: gradio_client.Client(url, verbose=False) for name, (_, url, _) in procs.items()}
    finally:
        for proc, _, _ in procs.values():
            proc.terminate()
        for proc, _, _ in procs.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


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


# ----------------------------------------------------------------------------- ANLS


def test_anls_headline_equals_core(servers):
    preds = ["The Coca", "CocaCola", "Coca cola", "  Thomas  Moore ", "ac   "]
    refs = [["Coca Cola", "Coca Cola Company"]] * 3 + [["Thomas More"], "ab"]
    for variant in ("docvqa", "stvqa_paper"):
        out = _compute(servers["anls"], preds, refs, variant, {"threshold": 0.5})
        core = compute_anls(preds, refs, variant=variant, threshold=0.5)
        assert out["headline"] == {"ANLS": core.anls}
        assert out["signature"] == core.signature
        assert [r["score"] for r in out["rows"]] == core.scores
    rows = _compute(servers["anls"], ["CocaCola"], [["Coca Cola", "Coca Cola Company"]])["rows"]
    assert rows == [
        {
            "prediction": "CocaCola",
            "best gold": "Coca Cola",
            "score": pytest.approx(0.8888888888888888),
            "why": "1 edit: insert ' ' @4",
        }
    ]


def test_anls_structured_answers(servers):
    preds = [{"a": "b", "c": "e"}, {"a": ["b", "c"]}, "CocaCola"]
    refs_tagged = [
        {"a": "b", "c": "d"},
        {"a": ["a", "b", "c"]},
        {"__tuple__": ["Coca Cola", "Coca Cola Company"]},
    ]
    refs = [{"a": "b", "c": "d"}, {"a": ["a", "b", "c"]}, ("Coca Cola", "Coca Cola Company")]
    out = _compute(servers["anls"], preds, refs_tagged, "anls_star")
    assert out["headline"]["ANLS"] == compute_anls(preds, refs, variant="anls_star").anls
    assert len(out["rows"]) == 3
    dude_preds = [["one", "to", "three"], [], "foo"]
    dude_refs = [{"answers": ["one", "two", "three"], "answer_type": "list"}, [], []]
    out = _compute(servers["anls"], dude_preds, dude_refs, "dude")
    assert out["headline"]["ANLS"] == compute_anls(dude_preds, dude_refs, variant="dude").anls


def test_anls_ui_endpoint_reads_table_and_jsonl(servers):
    client = servers["anls"]
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
    with pytest.raises(AppError, match="line 1: not valid JSON"):
        client.predict(
            "docvqa", "JSONL", table, '{"prediction": "a"', None, False, 0.5, api_name="/compute_ui"
        )


def test_anls_errors_are_messages(servers):
    client = servers["anls"]
    with pytest.raises(AppError, match=r"2,000 characters per string"):
        _compute(client, ["x" * 2001], ["x"])
    with pytest.raises(AppError, match=r"5,000 rows"):
        _compute(client, ["a"] * 5001, ["a"] * 5001)
    with pytest.raises(AppError, match=r"must be a str, got int"):
        _compute(client, [1], ["a"])
    with pytest.raises(AppError, match=r"2 predictions but 1 references"):
        _compute(client, ["a", "b"], ["a"])
    with pytest.raises(AppError, match=r"threshold"):
        _compute(client, ["a"], ["a"], "docvqa", {"threshold": 1.5})
    with pytest.raises(AppError, match=r"Unknown variant"):
        _compute(client, ["a"], ["a"], "nope")
    with pytest.raises(AppError, match=r"`predictions` is empty") as info:
        _compute(client, [], [])
    assert "Traceback" not in str(info.value)
    assert _compute(client, ["a"], ["a"])["headline"] == {"ANLS": 1.0}  # still serving


# ----------------------------------------------------------------------------- 1-NED


def test_ned_headline_equals_core(servers):
    preds = ["sitting", "abd", "ba", "Хор", "", "abc"]
    refs = ["kitten", "abc", "ab", ["хор", "x"], "", ""]
    for params in ({}, {"empty_pair": "one", "lowercase": True, "nfkc": True}):
        out = _compute(servers["one_minus_ned"], preds, refs, "", params)
        core = compute_one_minus_ned(preds, refs, **params)
        assert out["headline"] == {"1-NED": core.one_minus_ned, "CER": core.cer}
        assert out["signature"] == core.signature
        assert [r["distance"] for r in out["rows"]] == core.distances
        assert [r["best gold"] for r in out["rows"]] == core.closest


def test_ned_infinite_cer_stays_json(servers):
    out = _compute(servers["one_minus_ned"], ["a"], [""])
    assert math.isinf(compute_one_minus_ned(["a"], [""]).cer)
    assert out["headline"] == {"1-NED": 0.0, "CER": "inf"}


def test_ned_errors_are_messages(servers):
    client = servers["one_minus_ned"]
    with pytest.raises(AppError, match=r"references\[0\]\[1\]: 2,001 characters"):
        _compute(client, ["a"], [["a", "b" * 2001]])
    with pytest.raises(AppError, match=r"empty_pair"):
        _compute(client, ["a"], ["a"], "", {"empty_pair": "maybe"})
    with pytest.raises(AppError, match=r"Unknown parameter"):
        _compute(client, ["a"], ["a"], "", {"casefold": True})
    with pytest.raises(AppError, match=r"references\[0\]. must be a str or a list of str"):
        _compute(client, ["a"], [{"x": 1}])
    # still serving after the errors
    assert _compute(client, ["kitten"], ["sitting"])["headline"]["1-NED"] == pytest.approx(4 / 7)


# ----------------------------------------------------------------------------- token F1


def test_token_f1_headline_equals_core(servers):
    client = servers["token_f1"]
    cases = [
        (
            "squad",
            ["the big cat sat", "Denver Broncos", "", "cat cat cat"],
            [["a cat sat down", "x"], ["The Denver Broncos"], "", ["cat"]],
            {},
        ),
        ("squad_v2", ["", "Normans", "France", ""], [[], ["The Normans"], [], ["10th century"]], {}),
        (
            "mlqa",
            ["der Hund bellt", "Berlin, Deutschland"],
            [["ein Hund bellt laut"], ["Berlin"]],
            {"language": "de"},
        ),
        ("mlqa", ["北京大学", "长城。"], [["北京"], ["长城"]], {"language": "zh"}),
    ]
    for variant, preds, refs, params in cases:
        out = _compute(client, preds, refs, variant, params)
        core = compute_token_f1(preds, refs, variant=variant, **params)
        if variant == "squad_v2":
            assert out["headline"] == {k: v for k, v in core.squad_v2.items() if not k.endswith("total")}
        else:
            assert out["headline"] == {"exact_match": core.exact_match, "f1": core.f1}
        assert out["signature"] == core.signature
        assert [r["F1"] for r in out["rows"]] == [100.0 * f for f in core.f1_scores]
        assert [r["EM"] for r in out["rows"]] == [100.0 * e for e in core.exact_match_scores]
    rows = _compute(client, ["the big cat sat", "", "France"], [["a cat sat down"], [], []], "squad_v2")[
        "rows"
    ]
    assert [(r["best gold"], r["why"]) for r in rows] == [
        ("a cat sat down", "common: cat, sat | pred only: big | gold only: down"),
        ("(no answer)", "both empty after normalization → 1 (no answer expected, none given)"),
        ("(no answer)", "no answer expected, answer given → 0 | pred only: france"),
    ]
    assert _compute(client, ["北京大学"], ["北京"], "mlqa", {"language": "zh"})["rows"][0]["why"] == (
        "common: 北, 京 | pred only: 大, 学"
    )
    # question-level list answers
    preds, refs = [["Paris", "the Lyon"], [], ["Rome"]], [["paris", "Nice", "Lyon"], [], ["Turin"]]
    out = _compute(client, preds, refs, "question_level")
    core = compute_question_level(preds, refs)
    assert out["headline"] == {
        "f1": core.f1,
        "precision": core.precision,
        "recall": core.recall,
        "exact_match": core.exact_match,
        "micro_f1": core.micro_f1,
    }
    assert out["signature"] == core.signature
    assert [r["why"] for r in out["rows"]] == [
        "common: paris, lyon | gold only: nice",
        "both sets empty → 1",
        "pred only: rome | gold only: turin",
    ]
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


def test_token_f1_ui_histogram_on_the_0_100_scale(servers):
    table = {
        "headers": ["prediction", "references"],
        "data": [["the big cat sat", '["a cat sat down"]'], ["Normans", "The Normans"]],
    }
    headline, per_sample, histogram, signature = servers["token_f1"].predict(
        "squad", "table", table, "", None, False, "en", 1.0, "squad", 0.4, api_name="/compute_ui"
    )
    assert (
        f"{compute_token_f1(['the big cat sat', 'Normans'], [['a cat sat down'], 'The Normans']).f1:.4f}"
        in headline
    )
    assert _counts(histogram) == [0] * 6 + [1, 0, 0, 1]


def test_token_f1_errors_are_messages(servers):
    client = servers["token_f1"]
    with pytest.raises(AppError, match=r"`references\[0\]` has no answers|references\[0\].*empty"):
        _compute(client, ["a"], [[]], "squad")
    with pytest.raises(AppError, match=r"language"):
        _compute(client, ["a"], ["a"], "mlqa", {"language": "fr"})
    with pytest.raises(AppError, match=r"Unknown parameter"):
        _compute(client, ["a"], ["a"], "squad", {"lang": "de"})
    assert _compute(client, ["a b"], ["a b"], "squad")["headline"]["f1"] == 100.0  # still serving


# ----------------------------------------------------------------------------- METEOR

NLTK_HYP = "It is a guide to action which ensures that the military always obeys the commands of the party"
NLTK_REF = "It is a guide to action that ensures that the military will forever heed Party commands"


def test_meteor_headline_equals_core(servers):
    client = servers["meteor"]
    cases = [
        (
            "nltk",
            [NLTK_HYP, "A dog runs in the park."],
            [[NLTK_REF], ["a hound is running in a park", "dogs run"]],
        ),
        (
            "fbc2_captioning",
            ["Рыжий кот сидит на диване.", "кошки играют"],
            [["Рыжая кошка сидит на диване", "Кот на диване"], ["кошка играет"]],
        ),
        ("fbc2_vqa", ["3", "три кошки", "three"], [["5"], ["3"], ["3", "two"]]),
    ]
    for variant, preds, refs in cases:
        out = _compute(client, preds, refs, variant)  # parameters left out: the variant's defaults
        core = compute_meteor(preds, refs, variant=variant)
        assert out["headline"] == {"METEOR": core.meteor}
        assert out["signature"] == core.signature
        assert [r["score"] for r in out["rows"]] == core.scores
    assert core.scores == [0.6, 0.0, 1.0]  # "три кошки" vs "3": no number, as the challenge's scorer
    out = _compute(
        client, [NLTK_HYP], [NLTK_REF], "nltk", {"alpha": 0.5, "beta": 1.0, "gamma": 0.0, "synonyms": "none"}
    )
    core = compute_meteor([NLTK_HYP], [NLTK_REF], alpha=0.5, beta=1.0, gamma=0.0, synonyms="none")
    assert out["headline"] == {"METEOR": core.meteor} and out["signature"] == core.signature
    rows = _compute(client, ["A dog runs in the park."], [["a hound is running in a park", "dogs run"]])[
        "rows"
    ]
    assert rows == [
        {
            "prediction": "A dog runs in the park.",
            "best reference": "dogs run  (#2 of 2)",
            "score": 0.75,
            "why": "stem: dog→dogs, runs→run | unmatched: a, in, the, park, . | 1 chunk",
        }
    ]


def test_meteor_errors_are_messages(servers):
    client = servers["meteor"]
    with pytest.raises(AppError, match=r"parameter `beta` must be in \[0.0, 10.0\]"):
        _compute(client, ["a"], ["a"], "nltk", {"beta": -1})
    with pytest.raises(AppError, match=r"`references\[0\]` has no references"):
        _compute(client, ["a"], [[]])
    with pytest.raises(AppError, match=r"parameter `synonyms` must be one of"):
        _compute(client, ["a"], ["a"], "nltk", {"synonyms": "ruwordnet"})
    assert _compute(client, ["cat"], ["cat"])["headline"] == {"METEOR": 0.5}  # still serving


# ----------------------------------------------------------------------------- CIDEr

CAPTIONS = ["a cat sits on a mat", "a dog runs", "A man riding a wave on top of a surfboard."]
CAPTION_REFS = [
    ["a cat sits on a mat", "a cat on a mat"],
    ["a dog runs in the park", "a dog in a park"],
    ["A surfer riding a wave.", "a man surfing on a big wave", "Surfer on a surfboard riding a wave"],
]


def test_cider_headline_equals_core(servers):
    client = servers["cider"]
    for variant, label, params in (
        ("cider_d", "CIDEr-D", {}),
        ("cider", "CIDEr", {"n": 3, "tokenize": False}),
    ):
        out = _compute(client, CAPTIONS, CAPTION_REFS, variant, params)
        core = compute_cider(CAPTIONS, CAPTION_REFS, variant=variant, **params)
        assert out["headline"] == {label: core.cider}
        assert out["signature"] == core.signature
        assert [r["score"] for r in out["rows"]] == core.scores
    out = _compute(client, CAPTIONS, CAPTION_REFS, "cider_d", {"sigma": 2.0})
    assert out["headline"] == {"CIDEr-D": compute_cider(CAPTIONS, CAPTION_REFS, sigma=2.0).cider}
    assert out["rows"][0]["why"] == (
        "shared 1-4-grams: 5/5 · 5/5 · 4/4 · 3/3 | longest: “a cat sits on” | idf 0 (in every image's references): “a”"
    )


def test_cider_errors_are_messages(servers):
    client = servers["cider"]
    with pytest.raises(AppError, match=r"`references\[1\]` has no reference caption"):
        _compute(client, ["a cat", "a dog"], [["a cat"], []])
    with pytest.raises(AppError, match=r"`n` must be an int"):
        _compute(client, ["a cat", "a dog"], ["a cat", "a dog"], "cider_d", {"n": 2.5})
    assert (
        _compute(client, ["a cat", "a dog"], ["a cat", "a dog"])["headline"]["CIDEr-D"] > 0
    )  # still serving


# ----------------------------------------------------------------------------- COCO caption

COCO = get_metric("coco_caption")
#: the per-image score column of each config (COCOCaptionResult.main)
COCO_MAIN = {"coco": "CIDEr", "bleu": "Bleu_4", "rouge_l": "ROUGE_L"}
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


def _coco_core(config, preds, refs, params=None):
    """The core's result for a config of the Space, through the registry (what the Space
    calls) and straight from ``compute_coco_caption`` with the config's scorers."""
    params = dict(params or {})
    via_registry = COCO.run(config, preds, refs, **params)
    scorers = {"coco": ["bleu", "meteor", "rouge_l", "cider"], "bleu": ["bleu"], "rouge_l": ["rouge_l"]}[
        config
    ]
    if not params.pop("meteor", True):
        scorers.remove("meteor")
    direct = compute_coco_caption(preds, refs, scorers=scorers, **params)
    assert direct.table == via_registry.table and direct.per_image == via_registry.per_image
    assert direct.signature == via_registry.signature
    return direct


def _assert_coco_equals_core(out, core, preds):
    assert out["headline"] == core.table  # every key, in the toolkit's order, to the bit
    assert list(out["headline"]) == list(core.table)
    assert out["signature"] == core.signature
    rows = out["rows"]
    assert [r["prediction"] for r in rows] == preds
    assert [r["score"] for r in rows] == core.scores == core.per_image[core.main]
    for key, scores in core.per_image.items():  # every key's per-image score
        assert [r[key] for r in rows] == scores, key
    assert all({"prediction", "score", "why", "references", *core.table} == set(r) for r in rows)


def test_coco_caption_first_meteor_request_of_a_new_server(servers):
    """The first request of a fresh server (METEOR 1.5's data and paraphrase index loaded on
    first use; the index is on disk after its first build on this machine) is answered
    within the Space's time limit, with METEOR."""
    from metricore_hf.space import MAX_WORK, TIME_LIMIT

    preds, refs = list(COCO.examples[0].predictions), list(COCO.examples[0].references)
    assert COCO.cost("coco", preds, refs, {}) < MAX_WORK
    start = time.monotonic()
    out = _compute(servers["coco_caption"], preds, refs, "coco")
    elapsed = time.monotonic() - start
    assert elapsed < TIME_LIMIT
    assert ("METEOR" in out["headline"]) == meteor_1_5_available()
    _assert_coco_equals_core(out, _coco_core("coco", preds, refs), preds)


@pytest.mark.parametrize("config", ["coco", "bleu", "rouge_l"])
def test_coco_caption_headline_equals_core(servers, config):
    client = servers["coco_caption"]
    cases = [(list(ex.predictions), list(ex.references)) for ex in COCO.examples] + [
        (list(HOSTILE[0]), list(HOSTILE[1]))
    ]
    for preds, refs in cases:
        out = _compute(client, preds, refs, config)  # parameters left out: the config's defaults
        core = _coco_core(config, preds, refs)
        assert core.main == COCO_MAIN[config]
        _assert_coco_equals_core(out, core, preds)
    want = {"coco": ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "METEOR", "ROUGE_L", "CIDEr"]}.get(
        config, list(core.table)
    )
    if not meteor_1_5_available():
        want = [k for k in want if k != "METEOR"]
    assert list(out["headline"]) == want
    # the empty caption (first of the last case) scores 0 on every key, as in the toolkit
    assert all(out["rows"][0][key] == 0.0 for key in out["headline"])


def test_coco_caption_spec_examples_are_the_spaces(servers):
    """The worked examples of the Space are the spec's, and each scores as the core does
    with the config and options the example names."""
    from metricore_hf.space import load_spec

    spec = load_spec(ROOT / "spaces" / "coco_caption" / "app.py")
    assert [(e.label, e.variant) for e in spec.examples] == [(e.title, e.config) for e in COCO.examples]
    for ex in COCO.examples:
        preds, refs = list(ex.predictions), list(ex.references)
        out = _compute(servers["coco_caption"], preds, refs, ex.config or "", dict(ex.options))
        _assert_coco_equals_core(out, _coco_core(ex.config or "coco", preds, refs, ex.options), preds)


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
    # the same raw text PTB-tokenized (the default) scores otherwise
    tokenized = _compute(client, preds, refs, "coco", {"meteor": False})
    assert tokenized["headline"]["Bleu_4"] != out["headline"]["Bleu_4"]
    assert "tok:ptb-corenlp-3.4.1" in tokenized["signature"]
    for config in ("bleu", "rouge_l"):
        out = _compute(client, preds, refs, config, {"tokenize": False})
        _assert_coco_equals_core(out, _coco_core(config, preds, refs, {"tokenize": False}), preds)
    assert out["headline"] == {"ROUGE_L": float(rouge)}


def test_coco_caption_meteor_option(servers):
    client = servers["coco_caption"]
    preds, refs = list(COCO.examples[0].predictions), list(COCO.examples[0].references)
    without = _compute(client, preds, refs, "coco", {"meteor": False})
    assert "METEOR" not in without["headline"] and all("METEOR" not in r for r in without["rows"])
    _assert_coco_equals_core(without, _coco_core("coco", preds, refs, {"meteor": False}), preds)
    assert "meteor:" not in without["signature"]
    with_meteor = _compute(client, preds, refs, "coco", {"meteor": True})
    if meteor_1_5_available():
        assert "meteor:1.5-en-norm" in with_meteor["signature"]
        assert {k: v for k, v in with_meteor["headline"].items() if k != "METEOR"} == without["headline"]
        assert 0.0 < with_meteor["headline"]["METEOR"] < 1.0
    with pytest.raises(AppError, match=r"parameter `meteor` must be true or false"):
        _compute(client, preds, refs, "coco", {"meteor": "no"})
    # the option belongs to the `coco` config (its control is hidden for the others): BLEU alone
    # has no METEOR to leave out, and scores as the core does
    bleu = _compute(client, preds, refs, "bleu", {"meteor": True})
    _assert_coco_equals_core(bleu, _coco_core("bleu", preds, refs), preds)


def test_coco_caption_errors_are_messages(servers):
    client = servers["coco_caption"]
    for config in ("coco", "bleu", "rouge_l"):
        with pytest.raises(AppError, match=r"coco_caption: `references\[1\]` has no reference caption"):
            _compute(client, ["a cat", "a dog"], [["a cat"], []], config)
    with pytest.raises(AppError, match=r"coco_caption: `predictions\[1\]` must be a str, got int"):
        _compute(client, ["a cat", 3], [["a cat"], ["a dog"]])
    with pytest.raises(AppError, match=r"coco_caption: `references\[0\]\[1\]` must be a str, got int"):
        _compute(client, ["a cat"], [["a cat", 5]], "bleu")
    with pytest.raises(AppError, match=r"coco_caption: `references\[0\]` must be a str or a list of str"):
        _compute(client, ["a cat"], [None], "rouge_l")
    with pytest.raises(AppError, match=r"parameter `tokenize` must be true or false"):
        _compute(client, ["a cat"], ["a cat"], "bleu", {"tokenize": 1})
    with pytest.raises(AppError, match=r"Unknown variant 'cider'"):
        _compute(client, ["a cat"], ["a cat"], "cider")
    with pytest.raises(AppError, match=r"references\[0\]\[0\]: 2,001 characters") as info:
        _compute(client, ["a cat"], [["x" * 2001]])
    assert "Traceback" not in str(info.value)
    # still serving
    assert _compute(client, ["a cat"], ["a cat"], "rouge_l")["headline"] == {"ROUGE_L": 1.0}


# ----------------------------------------------------------------------------- worked examples


@pytest.mark.filterwarnings("ignore:cider. one image:UserWarning")
@pytest.mark.parametrize("name", APPS)
def test_examples_load_into_the_table_losslessly(name):
    """Every worked example survives the trip into table cells and back, and scores."""
    import runpy

    from metricore_hf import space

    spec = runpy.run_path(str(ROOT / "spaces" / name / "app.py"))["SPEC"]
    assert spec.examples
    for ex in spec.examples:
        variant, source, cells, *values = space._example_inputs(spec, ex)
        preds, refs = space._rows_to_columns(cells, variant in spec.structured_variants, "table")
        one = (
            (lambda r: r)
            if variant in spec.structured_variants
            else (lambda r: [r] if isinstance(r, str) else r)
        )
        assert preds == list(ex.predictions), ex.label
        assert [one(r) for r in refs] == [one(r) for r in ex.references], (
            ex.label
        )  # "x" and ["x"] are one gold
        headline, rows, _ = space.score(
            spec, preds, refs, variant or None, dict(zip((p.name for p in spec.params), values))
        )
        lo, hi = spec.score_range
        assert len(rows) == len(ex.predictions) and all(lo <= r[spec.score_column] <= hi for r in rows), (
            ex.label
        )


# ----------------------------------------------------------------------------- intervals, errors, rendering


def test_bootstrap_interval_through_the_api(servers):
    preds, refs = ["kitten", "abc", "Хор", "ab", "x"], ["sitting", "abd", "хор", "ba", "x"]
    out = _compute(servers["one_minus_ned"], preds, refs, "", {}, 0.9)
    cis = confidence_intervals(compute_one_minus_ned(preds, refs), confidence=0.9)
    assert out["headline"]["1-NED_ci_low"] == cis["one_minus_ned"].low
    assert out["headline"]["1-NED_ci_high"] == cis["one_minus_ned"].high
    assert (out["headline"]["CER_ci_low"], out["headline"]["CER_ci_high"]) == (
        cis["cer"].low,
        cis["cer"].high,
    )
    assert "1-NED_ci_low" not in _compute(servers["one_minus_ned"], preds, refs)["headline"]  # opt-in
    with pytest.raises(AppError, match=r"`confidence` must be a level in \(0, 1\)"):
        _compute(servers["anls"], ["a"], ["a"], "docvqa", {}, 1.5)


def _toy_spec(score_fn, **kwargs):
    from metricore_hf import space

    return space.SpaceSpec(name="toy", title="Toy", description="", score_fn=score_fn, **kwargs)


def test_any_error_of_the_metric_is_a_message():
    import gradio as gr

    from metricore_hf import space

    def boom(predictions, references, variant):
        raise RuntimeError("boom")

    with pytest.raises(gr.Error, match="toy: unexpected RuntimeError: boom") as info:
        space.score(_toy_spec(boom), ["a"], ["a"])
    assert info.value.message and "Traceback" not in info.value.message

    def missing_data(predictions, references, variant):
        raise LookupError("WordNet is not installed: run scripts/setup")

    with pytest.raises(gr.Error, match="WordNet is not installed"):
        space.score(_toy_spec(missing_data), ["a"], ["a"])
    with pytest.raises(gr.Error, match="offers no confidence interval"):
        space.score(_toy_spec(lambda p, r, v: ({"x": 1.0}, [], "")), ["a"], ["a"], confidence=0.95)

    @space.guarded("toy")
    def handler(rows: list) -> dict:
        return {"first": rows[0]}

    with pytest.raises(gr.Error, match=r"toy: unexpected IndexError: list index out of range"):
        handler([])
    assert handler([1]) == {"first": 1}


def test_headline_and_histogram_show_the_interval():
    from metricore_hf import space

    head = {"ANLS": 0.734, "ANLS_ci_low": 0.712, "ANLS_ci_high": 0.755, "CER": "inf"}
    page = space.headline_html(head, 3, 0.95)
    assert "0.7340 [0.7120, 0.7550]" in page and 'data-ci-low="0.712"' in page
    assert 'data-key="ANLS_ci_low"' not in page and ">inf<" in page and "95% bootstrap interval" in page
    spec = _toy_spec(lambda p, r, v: ({}, [], ""), confidence=True)
    svg = space._histogram_svg([0.0, 0.55, 1.0, 2.0], (0.0, 1.0), space._marker(spec, head))
    assert 'data-counts="1,0,0,0,0,1,0,0,0,2"' in svg  # out-of-range scores go to the end bins
    assert (
        'class="mc-ci"' in svg and 'data-low="0.712" data-high="0.755"' in svg and 'data-value="0.734"' in svg
    )
    assert 'class="mc-ci"' not in space._histogram_svg([0.5], (0.0, 1.0), space._marker(spec, {"ANLS": 0.5}))


def test_index_and_bundled_card_lookup(tmp_path):
    from metricore_hf import space

    specs = [space.load_spec(ROOT / "spaces" / n / "app.py") for n in ("anls", "one_minus_ned")]
    demo = space.build_index(specs, title="t", intro="i")
    assert {"anls_compute", "one_minus_ned_compute"} <= {d.api_name for d in demo.fns.values()}
    assert (
        space.metric_card(ROOT / "spaces" / "anls" / "app.py", "anls")
        == ROOT / "metrics" / "anls" / "README.md"
    )
    app = tmp_path / "anls" / "app.py"
    assert space.metric_card(app, "anls") == tmp_path / "anls" / "README.md"
    with pytest.raises(ValueError, match="no Space"):
        space.build_index([], title="t", intro="i")


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
    assert out["eligibility"] == core.eligibility and out["scores"] == core.task_scores
    partial = {"TextQA": 0.5, "Hidden1": 1.0}
    out = client.predict(submission=partial, missing="zero", api_name="/compute")
    assert out["integral"] == score_challenge(partial, missing="zero").integral
    with pytest.raises(AppError, match="missing task"):
        client.predict(submission=partial, missing="error", api_name="/compute")
    with pytest.raises(AppError, match="2,000 characters per string"):
        client.predict(
            submission={"TRitW": {"predictions": ["x" * 2001], "references": [["x"]]}}, api_name="/compute"
        )
    with pytest.raises(AppError, match="Unknown key"):
        client.predict(submission={**WHOLE_SUBMISSION_EXAMPLE, "extras": {}}, api_name="/compute")
    tasks = load_challenge("fbc2").task_names
    assert client.predict(submission=dict.fromkeys(tasks, 1.0), api_name="/compute")["eligible"] is True
