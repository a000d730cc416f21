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

from metricore.core.structured import to_json
from metricore.intervals import confidence_intervals
from metricore.registry import get, row_metrics

CHROMIUM = "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    pytest.skip(
        f"{CHROMIUM} is missing (Debian package `chromium`, see scripts/apt-packages.txt)",
        allow_module_level=True,
    )
sync_api = pytest.importorskip("playwright.sync_api")
space = pytest.importorskip("metricore_hf.space")
from metricore_hf.space.inputs import value_to_cell  # noqa: E402

pytestmark = [pytest.mark.space, pytest.mark.xdist_group("spaces-browser")]

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
APPS = row_metrics()
#: a whole-submission app of its own shape, when the challenge score is part of the checkout
CUSTOM = tuple(n for n in ("challenge_score",) if (ROOT / "spaces" / n / "app.py").is_file())


def _core_result(
    name: str, preds: list, refs: list, config: str | None, params: dict[str, Any]
) -> tuple[str, Any]:
    """(key of the plotted headline, core result), straight from the spec (not through the Space)."""
    warnings.simplefilter("ignore", UserWarning)  # CIDEr on one image
    result = get(name).bind(config, **params).run(preds, refs)
    return result.main_key() or next(iter(result.headline())), result


def _core(
    name: str, preds: list, refs: list, config: str | None, params: dict[str, Any]
) -> tuple[str, float]:
    key, result = _core_result(name, preds, refs, config, params)
    return key, result.headline()[key]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def servers():
    """``{name: url}`` for every app and the index, served in this process
    (METEOR 1.5's paraphrase index built first when missing, as a deployment would)."""
    from metricore.metrics.coco_caption import meteor_1_5_available

    if meteor_1_5_available():
        from metricore.metrics.meteor15 import prepare_data

        prepare_data()
    os.environ["NO_PROXY"] = os.environ["no_proxy"] = f"{HOST},localhost"
    started: dict[str, str] = {}
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
            started[name] = f"http://{HOST}:{port}/"
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


def _expect_headline(pg, key: str, value: float, timeout: int = TIMEOUT_MS) -> None:
    stat = pg.locator(f'.mc-stat[data-key="{key}"]').filter(visible=True)
    sync_api.expect(stat).to_have_attribute("data-value", repr(value), timeout=timeout)
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
            out.writerow([value_to_cell(p, structured, False), value_to_cell(r, structured, True)])


def _compute_until(page, expect, attempts: int = 3) -> None:
    """Click Compute and wait for ``expect(timeout_ms)`` to hold. On a loaded machine the click
    can reach Gradio before the code editor (or the upload box) has handed it the input just
    given (the request then scores the previous input): the click is repeated, at most
    ``attempts`` times, so a wrong number or a missing toast still fails the test."""
    for attempt in range(attempts):
        page.locator(".mc-compute").click()
        try:
            expect(15_000)
            return
        except AssertionError:
            if attempt == attempts - 1:
                raise


def _compute_expecting_error(page, text: str) -> None:
    """Compute, and expect an error toast containing ``text``."""
    toast = page.locator('[data-testid="toast-text"].error')
    _compute_until(page, lambda ms: sync_api.expect(toast.first).to_contain_text(text, timeout=ms))


def _compute_expecting_headline(page, key: str, value: float) -> None:
    """Compute, and expect the headline ``key`` to be ``value``, to the bit."""
    _compute_until(page, lambda ms: _expect_headline(page, key, value, timeout=ms))


@pytest.mark.parametrize("name", APPS)
def test_app_in_the_browser(servers, page, name, tmp_path):
    url, spec = servers[name], get(name)
    page.goto(url)
    # the page opens with the first example scored
    first = spec.examples[0]
    _expect_headline(
        page, *_core(name, list(first.predictions), list(first.references), first.config, dict(first.options))
    )

    # one click on a worked example loads and scores it
    ex = spec.examples[1]
    config = spec.config(ex.config).name
    page.get_by_text(ex.title, exact=True).click()
    _expect_headline(page, *_core(name, list(ex.predictions), list(ex.references), config, dict(ex.options)))
    assert page.locator(".mc-per-sample").get_by_text("why", exact=True).count() >= 1
    counts = page.locator(".mc-hist").get_attribute("data-counts")
    assert sum(map(int, counts.split(","))) == len(ex.predictions)

    # the main headline is the dashed line on the histogram, on the per-item scores' scale
    key, result = _core_result(name, list(ex.predictions), list(ex.references), config, dict(ex.options))
    scale = result.item_scale()
    sync_api.expect(page.locator(".mc-hist .mc-mean")).to_have_attribute(
        "data-value", repr(result.headline()[key] / scale)
    )

    # the bootstrap interval: headline text "v [low, high]" and a band on the histogram
    interval = page.get_by_label(f"{space.CONFIDENCE:.0%} bootstrap interval")
    ci = confidence_intervals(result, confidence=space.CONFIDENCE)[key]
    interval.check()
    stat = page.locator(f'.mc-stat[data-key="{key}"]')
    sync_api.expect(stat).to_have_attribute("data-ci-low", repr(ci.low))
    assert stat.get_attribute("data-ci-high") == repr(ci.high)
    want = f"{result.headline()[key]:.4f} [{ci.low:.4f}, {ci.high:.4f}]"
    assert stat.locator(".mc-value").inner_text().strip() == want
    band = page.locator(".mc-hist .mc-ci")
    assert (band.get_attribute("data-low"), band.get_attribute("data-high")) == (
        repr(ci.low / scale),
        repr(ci.high / scale),
    )
    _screenshot(page, name)
    interval.uncheck()
    sync_api.expect(page.locator(".mc-hist .mc-ci")).to_have_count(0)

    # pasted JSONL (the first two samples, same config and options)
    preds, refs = list(ex.predictions[:2]), list(ex.references[:2])
    page.get_by_label("JSONL", exact=True).check()
    editor = page.locator(".mc-jsonl .cm-content")
    editor.fill(_jsonl(preds, refs))
    _compute_expecting_headline(page, *_core(name, preds, refs, config, dict(ex.options)))

    # a limit: one string over MAX_CHARS, named in an error toast
    editor.fill(json.dumps({"prediction": "x" * (space.MAX_CHARS + 1), "references": ["x"]}))
    _compute_expecting_error(page, f"limit: {space.MAX_CHARS:,} characters per string")

    # an uploaded CSV file (the last two samples)
    preds, refs = list(ex.predictions[-2:]), list(ex.references[-2:])
    path = tmp_path / f"{name}.csv"
    _write_csv(path, preds, refs, spec.config(config).structured)
    page.get_by_label("file", exact=True).check()
    _upload(page, path)
    _compute_expecting_headline(page, *_core(name, preds, refs, config, dict(ex.options)))


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
    page.goto(servers["index"])
    first = get(APPS[0]).examples[0]
    _expect_headline(page, *_core(APPS[0], list(first.predictions), list(first.references), first.config, {}))
    for name in APPS:
        assert page.get_by_role("tab", name=get(name).label, exact=True).count() == 1
    if CUSTOM:
        assert page.get_by_role("tab", name=get("challenge_score").label, exact=True).count() == 1
    page.get_by_role("tab", name="CIDEr", exact=True).click()
    cider = get("cider").examples[0]
    _expect_headline(page, *_core("cider", list(cider.predictions), list(cider.references), "cider_d", {}))
    # a multi-key headline: every key of the COCO table, each checked to the bit
    page.get_by_role("tab", name="COCO caption", exact=True).click()
    coco = get("coco_caption").examples[0]
    _, result = _core_result("coco_caption", list(coco.predictions), list(coco.references), "coco", {})
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

    url = servers["challenge_score"]
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
    _compute_expecting_headline(page, "integral", score_challenge(given).integral)
    sync_api.expect(table.get_by_text("✗ < 0.2", exact=True)).to_have_count(1)
    assert page.locator('.mc-stat[data-key="eligible"] .mc-value').inner_text().strip() == "no"

    # a limit: an over-long answer string
    editor.fill(json.dumps({"TRitW": {"predictions": ["x" * (space.MAX_CHARS + 1)], "references": [["x"]]}}))
    _compute_expecting_error(page, f"limit: {space.MAX_CHARS:,} characters per string")

    # an uploaded JSON file, then the example again in one click
    path = tmp_path / "scores.json"
    path.write_text(json.dumps({t: 1.0 for t in tasks}), encoding="utf-8")
    page.get_by_label("file", exact=True).check()
    _upload(page, path)
    _compute_expecting_headline(page, "integral", score_challenge({t: 1.0 for t in tasks}).integral)
    page.locator(".mc-example").click()
    _expect_headline(page, "integral", score_submission(**WHOLE_SUBMISSION_EXAMPLE).integral)
