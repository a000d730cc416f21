"""The shared Space builder in-process (no server): examples survive the trip into the table,
errors are messages, the headline and histogram show intervals, the index and card lookup."""

from __future__ import annotations

import pytest

from metricore.registry import get, row_metrics

from .servers import ROOT

pytest.importorskip("gradio")


@pytest.fixture(scope="module", autouse=True)
def _prepared():
    """METEOR 1.5's one-time data built first, as a deployment would (until it is there a
    Space scores the COCO table without METEOR: tests/spaces/test_spaces_limits.py)."""
    from metricore.metrics.coco_caption import meteor_1_5_available

    if meteor_1_5_available():
        from metricore.metrics.meteor15 import prepare_data

        prepare_data()


@pytest.mark.filterwarnings("ignore:cider. one image:UserWarning")
@pytest.mark.parametrize("name", row_metrics())
def test_examples_load_into_the_table_losslessly(name):
    """Every worked example survives the trip into table cells and back, and scores."""
    from metricore_hf import space
    from metricore_hf.space.builder import _example_inputs
    from metricore_hf.space.inputs import table_columns

    metric = space.metric_space(name, ROOT / "spaces" / name / "app.py")
    spec = get(name)
    assert spec.examples
    for i, ex in enumerate(spec.examples):
        config, source, cells, *values = _example_inputs(metric, i)
        structured = spec.config(config).structured
        preds, refs = table_columns(cells, structured)

        def one(r, structured=structured):
            return r if structured else ([r] if isinstance(r, str) else r)

        assert preds == list(ex.predictions), ex.title
        assert [one(r) for r in refs] == [one(r) for r in ex.references], (
            ex.title
        )  # "x" and ["x"] are one gold
        params = {c.name: v for c, v in zip(metric.controls, values) if c.applies_to(config)}
        scored = space.score(metric, preds, refs, config, params)
        lo, hi = spec.score_range
        rows = scored.rows
        assert len(rows) == len(ex.predictions) and all(lo <= r["score"] <= hi for r in rows), ex.title
        assert (
            scored.signature
            == spec.bind(ex.config, **ex.options).run(ex.predictions, ex.references).signature
        )


def test_any_error_of_the_metric_is_a_message():
    import dataclasses

    import gradio as gr

    from metricore_hf import space

    from .toys import boom, missing_data

    toy = space.MetricSpace(dataclasses.replace(get("one_minus_ned"), compute=boom))
    with pytest.raises(gr.Error, match="one_minus_ned: unexpected RuntimeError: boom") as info:
        space.score(toy, ["a"], ["a"])
    assert info.value.message and "Traceback" not in info.value.message

    toy = space.MetricSpace(dataclasses.replace(get("one_minus_ned"), compute=missing_data))
    with pytest.raises(gr.Error, match="WordNet is not installed"):
        space.score(toy, ["a"], ["a"])
    no_stats = space.MetricSpace(dataclasses.replace(get("one_minus_ned"), statistics=None))
    with pytest.raises(gr.Error, match="offers no confidence interval"):
        space.score(no_stats, ["a"], ["a"], confidence=0.95)

    @space.guarded("toy")
    def handler(rows: list) -> dict:
        return {"first": rows[0]}

    with pytest.raises(gr.Error, match=r"toy: unexpected IndexError: list index out of range"):
        handler([])
    assert handler([1]) == {"first": 1}


def test_deep_structures_get_the_cores_message():
    import gradio as gr

    from metricore_hf import space

    deep: object = "x"
    for _ in range(600):
        deep = [deep]
    anls = space.metric_space("anls")
    with pytest.raises(gr.Error, match=r"`predictions\[0\]` is nested more than 100 levels deep"):
        space.score(anls, [deep], [["x"]], "anls_star")


def test_headline_and_histogram_show_the_interval():
    from metricore_hf.space.builder import _marker
    from metricore_hf.space.display import headline_html, histogram_svg
    from metricore_hf.workers import Scored

    head = {"anls": 0.734, "anls_ci_low": 0.712, "anls_ci_high": 0.755, "cer": "inf"}
    page = headline_html(head, 3, 0.95)
    assert "0.7340 [0.7120, 0.7550]" in page and 'data-ci-low="0.712"' in page
    assert 'data-key="anls_ci_low"' not in page and ">inf<" in page and "95% bootstrap interval" in page

    def scored(headline):
        return Scored(headline, [], "", [], "anls", 1.0)

    svg = histogram_svg([0.0, 0.55, 1.0, 2.0], (0.0, 1.0), _marker(scored(head)))
    assert 'data-counts="1,0,0,0,0,1,0,0,0,2"' in svg  # out-of-range scores go to the end bins
    assert (
        'class="mc-ci"' in svg and 'data-low="0.712" data-high="0.755"' in svg and 'data-value="0.734"' in svg
    )
    assert 'class="mc-ci"' not in histogram_svg([0.5], (0.0, 1.0), _marker(scored({"anls": 0.5})))


def test_index_and_bundled_card_lookup(tmp_path):
    from metricore_hf import space

    spaces = [space.metric_space(n, ROOT / "spaces" / n / "app.py") for n in ("anls", "one_minus_ned")]
    demo = space.build_index(spaces, title="t", intro="i")
    assert {"anls_compute", "one_minus_ned_compute"} <= {d.api_name for d in demo.fns.values()}
    assert (
        space.metric_card(ROOT / "spaces" / "anls" / "app.py", "anls")
        == ROOT / "metrics" / "anls" / "README.md"
    )
    app = tmp_path / "anls" / "app.py"
    assert space.metric_card(app, "anls") == tmp_path / "anls" / "README.md"
    with pytest.raises(ValueError, match="no Space"):
        space.build_index([], title="t", intro="i")
