"""The Spaces in a real browser: every ``spaces/<name>/app.py`` is served in-process on a free
loopback port and driven in headless Chromium (Debian's ``/usr/bin/chromium`` through
Playwright; no browser is ever downloaded).

Per app: the page opens with the first worked example scored; a click on the second example
loads and scores it, and the headline number read from the page equals the core's value for
that example (to the last bit, through the ``data-value`` attribute, and as the 4-decimal
text); JSONL pasted into the editor and a CSV file uploaded through the file input are scored
and checked the same way; the "95% bootstrap interval" checkbox shows the core's
interval in the headline and as a band on the histogram; an over-long string shows the limit's message in an error toast;
the page raises no uncaught error. A screenshot of each app (down to its signature) is
written to ``docs/screenshots/<name>.png``. The index Space is checked by switching tabs.
"""

from __future__ import annotations

import csv
import json
import os
import runpy
import socket
import warnings
from pathlib import Path
from typing import Any

import pytest

from metricore import (
    compute_anls,
    compute_cider,
    compute_meteor,
    compute_one_minus_ned,
    compute_question_level,
    compute_token_f1,
)
from metricore.core.structured import to_json
from metricore.intervals import confidence_intervals
from metricore.metrics.coco_caption import compute_coco_caption

CHROMIUM = "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    pytest.skip(
        f"{CHROMIUM} is missing (Debian package `chromium`, see scripts/apt-packages.txt)",
        allow_module_level=True,
    )
sync_api = pytest.importorskip("playwright.sync_api")
space = pytest.importorskip("metricore_hf.space")

pytestmark = pytest.mark.space

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "docs" / "screenshots"
HOST = "127.0.0.1"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TIMEOUT_MS = 30_000
APPS = ("anls", "one_minus_ned", "token_f1", "meteor", "cider", "coco_caption")
#: a whole-submission app of its own shape, when the challenge score is part of the checkout
CUSTOM = tuple(n for n in ("challenge_score",) if (ROOT / "spaces" / n / "app.py").is_file())


def _core_result(
    name: str, preds: list, refs: list, variant: str | None, params: dict[str, Any]
) -> tuple[str, Any, str]:
    """(label on the page, core result, its key) of the plotted headline, straight from the
    core (not through the Space)."""
    warnings.simplefilter("ignore", UserWarning)  # CIDEr on one image
    if name == "anls":
        return "ANLS", compute_anls(preds, refs, variant=variant, **params), "anls"
    if name == "one_minus_ned":
        return "1-NED", compute_one_minus_ned(preds, refs, **params), "one_minus_ned"
    if name == "token_f1" and variant == "question_level":
        return "f1", compute_question_level(preds, refs, **params), "f1"
    if name == "token_f1":
        return "f1", compute_token_f1(preds, refs, variant=variant, **params), "f1"
    if name == "meteor":
        return "METEOR", compute_meteor(preds, refs, variant=variant, **params), "meteor"
    if name == "cider":
        label = {"cider_d": "CIDEr-D", "cider": "CIDEr"}[variant]
        return label, compute_cider(preds, refs, variant=variant, **params), "cider"
    if name == "coco_caption":
        # the page shows every key of the table; the histogram plots CIDEr, else Bleu_4, else
        # ROUGE_L (the SpaceSpec's `plotted`), the per-image `score` column
        scorers = {"coco": ["bleu", "meteor", "rouge_l", "cider"], "bleu": ["bleu"], "rouge_l": ["rouge_l"]}
        chosen = scorers[variant or "coco"]
        if not params.pop("meteor", True):
            chosen.remove("meteor")
        result = compute_coco_caption(preds, refs, scorers=chosen, **params)
        label = next(k for k in ("CIDEr", "Bleu_4", "ROUGE_L") if k in result.table)
        return label, result, label
    raise KeyError(name)


def _value(result: Any, key: str) -> float:
    """A core result's number ``key``: an attribute, or a key of the COCO caption table."""
    table = getattr(result, "table", None)
    return table[key] if isinstance(table, dict) else getattr(result, key)


def _core(
    name: str, preds: list, refs: list, variant: str | None, params: dict[str, Any]
) -> tuple[str, float]:
    label, result, key = _core_result(name, preds, refs, variant, dict(params))
    return label, _value(result, key)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def servers():
    """``{name: (url, SpaceSpec or None)}`` for every app and the index, served in this process
    (METEOR 1.5's paraphrase index built first when missing, as a deployment would)."""
    from metricore.metrics.coco_caption import meteor_1_5_available

    if meteor_1_5_available():
        from metricore.metrics.meteor15 import prepare_data

        prepare_data()
    os.environ["NO_PROXY"] = os.environ["no_proxy"] = f"{HOST},localhost"
    started: dict[str, tuple[str, Any]] = {}
    demos = []
    try:
        for name in (*APPS, *CUSTOM, "index"):
            namespace = runpy.run_path(
                str(ROOT / "spaces" / name / "app.py"), run_name="metricore_space_test"
            )
            port = _free_port()
            space.launch(
                namespace["demo"], server_name=HOST, server_port=port, prevent_thread_lock=True, quiet=True
            )
            demos.append(namespace["demo"])
            started[name] = (f"http://{HOST}:{port}/", namespace.get("SPEC"))
        yield started
    finally:
        for demo in demos:
            demo.close()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    pg.on("pageerror", lambda err: errors.append(str(err)))
    yield pg
    context.close()
    assert errors == [], f"uncaught page errors: {errors}"


def _expect_headline(pg, key: str, value: float) -> None:
    stat = pg.locator(f'.mc-stat[data-key="{key}"]').filter(visible=True)
    sync_api.expect(stat).to_have_attribute("data-value", repr(value), timeout=TIMEOUT_MS)
    assert stat.locator(".mc-value").inner_text().strip() == f"{value:.4f}"


def _screenshot(pg, name: str) -> None:
    """The app down to its signature box (the metric card below is left out)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    box = pg.locator(".mc-signature").filter(visible=True).bounding_box()
    pg.screenshot(
        path=str(SHOTS / f"{name}.png"),
        full_page=True,
        clip={"x": 0, "y": 0, "width": 1280, "height": box["y"] + box["height"] + 16},
    )


def _jsonl(preds: list, refs: list) -> str:
    return "\n".join(
        json.dumps(
            {"prediction": json.loads(to_json(p)), "references": json.loads(to_json(r))}, ensure_ascii=False
        )
        for p, r in zip(preds, refs)
    )


def _write_csv(path: Path, preds: list, refs: list, structured: bool) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(["prediction", "references"])
        for p, r in zip(preds, refs):
            out.writerow(
                [space._value_to_cell(p, structured, False), space._value_to_cell(r, structured, True)]
            )


@pytest.mark.parametrize("name", APPS)
def test_app_in_the_browser(servers, page, name, tmp_path):
    url, spec = servers[name]
    page.goto(url)
    # the page opens with the first example scored
    first = spec.examples[0]
    _expect_headline(
        page,
        *_core(
            name,
            list(first.predictions),
            list(first.references),
            first.variant or spec.default_variant,
            dict(first.params),
        ),
    )

    # one click on a worked example loads and scores it
    ex = spec.examples[1]
    variant = ex.variant or spec.default_variant
    page.get_by_text(ex.label, exact=True).click()
    _expect_headline(page, *_core(name, list(ex.predictions), list(ex.references), variant, dict(ex.params)))
    assert page.locator(".mc-per-sample").get_by_text("why", exact=True).count() >= 1
    counts = page.locator(".mc-hist").get_attribute("data-counts")
    assert sum(map(int, counts.split(","))) == len(ex.predictions)

    # the plotted headline is the dashed line on the histogram
    label, result, key = _core_result(
        name, list(ex.predictions), list(ex.references), variant, dict(ex.params)
    )
    sync_api.expect(page.locator(".mc-hist .mc-mean")).to_have_attribute(
        "data-value", repr(_value(result, key))
    )

    # the bootstrap interval: headline text "v [low, high]" and a band on the histogram
    interval = page.get_by_label(f"{space.CONFIDENCE:.0%} bootstrap interval")
    if not spec.confidence:  # a Space that offers no interval hides the box
        sync_api.expect(interval).to_be_hidden()
        _screenshot(page, name)
    else:
        ci = confidence_intervals(result, confidence=space.CONFIDENCE)[key]
        interval.check()
        stat = page.locator(f'.mc-stat[data-key="{label}"]')
        sync_api.expect(stat).to_have_attribute("data-ci-low", repr(ci.low))
        assert stat.get_attribute("data-ci-high") == repr(ci.high)
        want = f"{_value(result, key):.4f} [{ci.low:.4f}, {ci.high:.4f}]"
        assert stat.locator(".mc-value").inner_text().strip() == want
        band = page.locator(".mc-hist .mc-ci")
        assert (band.get_attribute("data-low"), band.get_attribute("data-high")) == (
            repr(ci.low),
            repr(ci.high),
        )
        _screenshot(page, name)
        interval.uncheck()
        sync_api.expect(page.locator(".mc-hist .mc-ci")).to_have_count(0)

    # pasted JSONL (the first two samples, same variant and parameters)
    preds, refs = list(ex.predictions[:2]), list(ex.references[:2])
    page.get_by_label("JSONL", exact=True).check()
    editor = page.locator(".mc-jsonl .cm-content")
    editor.fill(_jsonl(preds, refs))
    page.locator(".mc-compute").click()
    _expect_headline(page, *_core(name, preds, refs, variant, dict(ex.params)))

    # a limit: one string over MAX_CHARS, named in an error toast
    editor.fill(json.dumps({"prediction": "x" * (space.MAX_CHARS + 1), "references": ["x"]}))
    page.locator(".mc-compute").click()
    toast = page.locator('[data-testid="toast-text"].error')
    sync_api.expect(toast.first).to_contain_text(f"limit: {space.MAX_CHARS:,} characters per string")

    # an uploaded CSV file (the last two samples)
    preds, refs = list(ex.predictions[-2:]), list(ex.references[-2:])
    path = tmp_path / f"{name}.csv"
    _write_csv(path, preds, refs, variant in spec.structured_variants)
    page.get_by_label("file", exact=True).check()
    _upload(page, path)
    page.locator(".mc-compute").click()
    _expect_headline(page, *_core(name, preds, refs, variant, dict(ex.params)))


def _upload(page, path):
    """Choose ``path`` in the upload box once the box is shown. The box is made visible by a
    server round trip after the source radio changes, and a file chosen while Gradio is still
    re-rendering it is dropped; so wait for it, and choose again if the name does not show."""
    box = page.locator(".mc-upload")
    sync_api.expect(box).to_be_visible()
    box.locator("input[type=file]").set_input_files(str(path))
    # Gradio lists the file as <td aria-label="name.csv"><span>name</span> <span>.csv</span>,
    # whose text may read "name .csv": match the label, not the text
    name = box.locator(f'[aria-label="{path.name}"]')
    for attempt in range(3):
        try:
            name.wait_for(timeout=15_000)
            return
        except Exception:
            if attempt == 2:
                raise
            chooser = box.locator("input[type=file]")  # gone once a file is shown
            if chooser.count():
                chooser.set_input_files(str(path))


def test_index_lets_a_visitor_pick_any_metric(servers, page):
    url, _ = servers["index"]
    page.goto(url)
    anls = servers["anls"][1].examples[0]
    _expect_headline(page, *_core("anls", list(anls.predictions), list(anls.references), "docvqa", {}))
    for label in ("Token F1", "METEOR", "CIDEr", "COCO caption", "1-NED", *(["Challenge"] if CUSTOM else [])):
        assert page.get_by_role("tab", name=label, exact=True).count() == 1
    page.get_by_role("tab", name="CIDEr", exact=True).click()
    cider = servers["cider"][1].examples[0]
    _expect_headline(page, *_core("cider", list(cider.predictions), list(cider.references), "cider_d", {}))
    # a multi-key headline: every key of the COCO table, the plotted one checked to the bit
    page.get_by_role("tab", name="COCO caption", exact=True).click()
    coco = servers["coco_caption"][1].examples[0]
    label, result, _ = _core_result("coco_caption", list(coco.predictions), list(coco.references), "coco", {})
    _expect_headline(page, label, result.table[label])
    for key, value in result.table.items():
        _expect_headline(page, key, value)
    _screenshot(page, "index")


@pytest.mark.skipif(not CUSTOM, reason="no challenge_score Space in this checkout")
def test_challenge_app_in_the_browser(servers, page, tmp_path):
    from metricore.challenge import (
        WHOLE_SUBMISSION_EXAMPLE,
        load_challenge,
        score_challenge,
        score_submission,
    )

    url, _ = servers["challenge_score"]
    page.goto(url)
    _expect_headline(page, "integral", score_submission(**WHOLE_SUBMISSION_EXAMPLE).integral)
    table = page.locator(".mc-per-sample")
    sync_api.expect(table.get_by_text("✓ ≥ 0.2", exact=True)).to_have_count(1)  # TextQA's eligibility
    assert page.locator(".mc-tasks rect").count() == len(load_challenge("fbc2").task_names)
    _screenshot(page, "challenge_score")

    # per-task inputs typed in: given scores, a failed threshold
    tasks = load_challenge("fbc2").task_names
    given = {t: (0.1 if t == "TextQA" else 0.6) for t in tasks}
    editor = page.locator(".mc-jsonl .cm-content")
    editor.fill(json.dumps(given))
    page.locator(".mc-compute").click()
    _expect_headline(page, "integral", score_challenge(given).integral)
    sync_api.expect(table.get_by_text("✗ < 0.2", exact=True)).to_have_count(1)
    assert page.locator('.mc-stat[data-key="eligible"] .mc-value').inner_text().strip() == "no"

    # a limit: an over-long answer string
    editor.fill(json.dumps({"TRitW": {"predictions": ["x" * (space.MAX_CHARS + 1)], "references": [["x"]]}}))
    page.locator(".mc-compute").click()
    sync_api.expect(page.locator('[data-testid="toast-text"].error').first).to_contain_text(
        f"limit: {space.MAX_CHARS:,} characters per string"
    )

    # an uploaded JSON file, then the example again in one click
    path = tmp_path / "scores.json"
    path.write_text(json.dumps({t: 1.0 for t in tasks}), encoding="utf-8")
    page.get_by_label("file", exact=True).check()
    _upload(page, path)
    page.locator(".mc-compute").click()
    _expect_headline(page, "integral", score_challenge({t: 1.0 for t in tasks}).integral)
    page.locator(".mc-example").click()
    _expect_headline(page, "integral", score_submission(**WHOLE_SUBMISSION_EXAMPLE).integral)
