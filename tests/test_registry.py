"""Every surface offers exactly what the metric registry declares, and every result type
satisfies the one result protocol.

For each metric and config of :data:`metricore.registry.METRICS`: the ``evaluate`` module
(the keywords its ``compute`` accepts, its configs), the CLI (``metricore score --metric X
--config Y``: its configs and ``--option`` names), the challenge tasks and the Space (its
variants and controls) are checked against the spec, through their own public behaviour
(error messages that list what is allowed, the Space's declared controls), not through the
tables they are built from."""

from __future__ import annotations

import importlib.util
import json
import math
import re
import sys

import evaluate
import pytest

from metricore.challenge.tasks import TASK_METRICS
from metricore.cli import main as cli_main
from metricore.core.result import MetricResult
from metricore.registry import METRICS, get, spec_for
from metricore_hf.evaluate_module import INTERVAL_KWARGS

from .conftest import ROOT

CASES = [(name, c.name) for name, spec in METRICS.items() for c in spec.configs]


def _allowed(message: str) -> set[str]:
    """The names after "allowed:" in an error message (quoted or bare, comma separated)."""
    tail = message.split("allowed:", 1)[1].strip().rstrip(".")
    tail = tail.strip("[]")
    return {w.strip().strip("'\"") for w in tail.split(",") if w.strip() and w.strip() != "none"}


def test_every_metric_folder_has_a_spec_and_back():
    folders = {
        p.name for p in (ROOT / "metrics").iterdir() if p.is_dir() and not p.name.startswith(("_", "."))
    }
    assert folders == set(METRICS)
    for name in METRICS:
        assert get(name).name == name
        assert (ROOT / "spaces" / name / "app.py").exists()


def test_unknown_names_are_refused_with_a_hint():
    with pytest.raises(ValueError, match=r"unknown metric 'anl'.*did you mean 'anls'"):
        get("anl")
    with pytest.raises(ValueError, match=r"did you mean 'docvqa'.*allowed: 'docvqa'"):
        get("anls").config("docvq")
    with pytest.raises(TypeError, match=r"unknown option\(s\) 'treshold'.*did you mean 'threshold'"):
        get("anls").check_options("docvqa", {"treshold": 0.4})


@pytest.mark.parametrize("name,config", CASES)
def test_evaluate_module_offers_the_spec(name, config):
    spec = get(name).config(config)
    metric = evaluate.load(f"metrics/{name}", config)
    with pytest.raises(TypeError, match="unexpected keyword") as err:
        metric.compute(predictions=[], references=[], not_an_option=1)
    assert _allowed(str(err.value)) == set(spec.option_names) | INTERVAL_KWARGS


@pytest.mark.parametrize("name", list(METRICS))
def test_evaluate_module_lists_the_spec_configs(name):
    with pytest.raises(ValueError) as err:
        evaluate.load(f"metrics/{name}", "no_such_config")
    assert _allowed(str(err.value)) == set(get(name).config_names)


@pytest.mark.parametrize("name,config", CASES)
def test_cli_offers_the_spec(name, config, tmp_path, capsys):
    if name == "challenge_score":  # not a row metric: `metricore challenge`
        with pytest.raises(SystemExit):
            cli_main(["score", "--metric", name, "--predictions", "x"])
        assert "invalid choice" in capsys.readouterr().err
        return
    spec = get(name).config(config)
    preds = tmp_path / "p.jsonl"
    preds.write_text(json.dumps({"prediction": "a", "references": ["a"]}) + "\n", encoding="utf-8")
    code = cli_main(
        [
            "score",
            "--metric",
            name,
            "--config",
            config,
            "--predictions",
            str(preds),
            "--option",
            "not_an_option=1",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "not_an_option" in err
    assert _allowed(err) == set(spec.option_names)
    code = cli_main(["score", "--metric", name, "--config", "no_such_config", "--predictions", str(preds)])
    assert code == 2 and _allowed(capsys.readouterr().err) == set(get(name).config_names)


@pytest.mark.parametrize("name", ["anls", "token_f1", "meteor", "one_minus_ned"])
def test_challenge_tasks_offer_the_spec(name):
    task = TASK_METRICS[name]
    configs = [c for c in get(name).configs if c.name in task.configs]
    # every config that takes prediction/reference texts is a task config
    assert [c.name for c in configs] == [
        c.name
        for c in get(name).configs
        if ("text", "alternatives") in c.inputs or c.json_cells and name == "anls"
    ]
    declared = set().union(*(c.option_names for c in configs)) - {"percent"}  # a task score is in [0, 1]
    extra = {"score"} if name == "token_f1" else set()  # which token-F1 number the task takes
    assert set(task.options) == declared | extra
    assert set(TASK_METRICS["meteor_clip"].configs) == set(get("meteor").config_names)


def _load_space(name):
    module_name = f"_space_app_{name}"
    spec = importlib.util.spec_from_file_location(module_name, ROOT / "spaces" / name / "app.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module.SPEC


@pytest.mark.space
@pytest.mark.parametrize("name", [n for n in METRICS if n != "challenge_score"])
def test_space_offers_the_spec(name):
    metric = get(name)
    space = _load_space(name)
    if len(metric.configs) > 1:
        assert space.variants == metric.config_names
    else:
        assert space.variants in ((), metric.config_names)
    for config in metric.configs:
        key = config.name if space.variants else None
        offered = {p.name for p in space.params if p.applies_to(key)}
        assert offered == {o.name for o in config.options if o.interactive}, config.name
        for p in space.params:
            if p.applies_to(key):
                want = config.option(p.name).default
                if want is not None:
                    assert p.default_for(key) == want, (config.name, p.name)
    assert [(e.label, e.variant) for e in space.examples] == [(e.title, e.config) for e in metric.examples]


# --------------------------------------------------------------------------------------------
# The result protocol
# --------------------------------------------------------------------------------------------

_CHALLENGE_ROWS = [
    {"task": t, "score": 0.5}
    for t in ("TextQA", "MathQA", "ImageGeneration", "ImageCaptioning", "VisualQA", "TRitW")
]
EXAMPLES = [
    (name, e.config, list(e.predictions), list(e.references), dict(e.options))
    for name, spec in METRICS.items()
    for e in spec.examples
] + [("challenge_score", "fbc2", _CHALLENGE_ROWS, [None] * 6, {"missing": "zero"})]


@pytest.mark.parametrize(
    "name,config,preds,refs,options", EXAMPLES, ids=lambda v: v if isinstance(v, str) else ""
)
def test_every_result_satisfies_the_protocol(name, config, preds, refs, options):
    spec = get(name)
    r = spec.run(config, preds, refs, **options)
    assert isinstance(r, MetricResult) and isinstance(r, spec.result_types)
    assert spec_for(r) is spec
    assert isinstance(r.scores, list) and all(isinstance(s, float) for s in r.scores)
    n = len(r.scores)
    assert n == (len(preds) if name != "challenge_score" else len(r.tasks))
    records = r.per_item()
    assert [rec["index"] for rec in records] == list(range(n))
    for rec, s in zip(records, r.scores):
        assert {"index", "id", "prediction", "closest", "score"} <= set(rec)
        assert rec["score"] == s or (math.isnan(s) and math.isnan(rec["score"]))
    out = r.as_dict()
    assert out["signature"] == r.signature and r.signature.startswith(
        name if name != "one_minus_ned" else "one_minus_ned"
    )
    headline = r.headline()
    assert headline and all(isinstance(v, float) for v in headline.values())
    for key, value in headline.items():
        if key in out:
            assert out[key] == value or (math.isnan(value) and math.isnan(out[key]))
    if spec.explain is not None:
        why = spec.explain(spec.config(config).name, preds, refs, options, r)
        assert len(why) == n and all(isinstance(w, str) and w for w in why)
    assert spec.cost(spec.config(config).name, preds, refs, options) > 0


def test_per_item_predictions_are_the_scored_ones():
    r = get("one_minus_ned").run(None, ["kitten", "abc"], [["sitting", "kitten"], "abd"])
    assert [(x["prediction"], x["closest"], x["score"]) for x in r.per_item()] == [
        ("kitten", "kitten", 1.0),
        ("abc", "abd", pytest.approx(2 / 3)),
    ]


def test_cost_grows_with_the_work():
    spec = get("anls")
    small = spec.cost("docvqa", ["abc"], [["abd"]], {})
    large = spec.cost("docvqa", ["abc" * 100] * 10, [["abd" * 100] * 5] * 10, {})
    assert large > 100 * small
    deep = spec.cost("anls_star", [[["a"] * 50]], [[["b"] * 50]], {})
    assert deep > spec.cost("anls_star", [["a"]], [["b"]], {})


def test_no_surface_keeps_its_own_table():
    """The tables the registry replaced are gone from the surfaces' sources."""
    pattern = re.compile(
        r"COMPUTE_KWARGS\s*=|\bCONFIGS\s*=\s*\{|_register_builtin|_METEOR_OPTIONS|_SQUAD_CONFIGS"
    )
    for folder in ("metrics", "spaces", "metricore/cli", "metricore/challenge", "metricore_hf"):
        for path in (ROOT / folder).rglob("*.py"):
            assert not pattern.search(path.read_text(encoding="utf-8")), path
