"""Every surface offers exactly what the metric registry declares, and every result type
satisfies the one result base.

For each metric and config of :data:`metricore.registry.METRICS` (discovered from
``metricore/specs/``, so a metric added with ``metricore new-metric`` is checked here with no
edit): the ``evaluate`` module (its configs, the keywords its ``compute`` accepts), the CLI
(``metricore score --metric X --config Y``: its metric list, configs and ``--option`` names),
the challenge tasks, the Space (its configs, controls and examples), the index Space, the
bundles and the demo are checked against the spec through their own public behaviour (error
messages that list what is allowed, the Space's controls), not through a list kept here."""

from __future__ import annotations

import json
import math

import evaluate
import pytest

from metricore import registry
from metricore.challenge.tasks import TASK_METRICS
from metricore.cli import main as cli_main
from metricore.core.result import MetricResult
from metricore.registry import METRICS, get, names, row_metrics, spec_for

from .conftest import ROOT

CASES = [(name, c.name) for name, spec in METRICS.items() for c in spec.configs]
ROWS = row_metrics()
ROW_CASES = [(name, config) for name, config in CASES if name in ROWS]
#: what an evaluate module's compute() takes besides the options
COMPUTE_KEYWORDS = {"confidence", "n_resamples", "seed", "interval_method", "predictions", "references"}


def _allowed(message: str) -> set[str]:
    """The names after "allowed:" in an error message (quoted or bare, comma separated)."""
    tail = message.split("allowed:", 1)[1].strip().splitlines()[0].rstrip(".")
    tail = tail.strip("[]")
    return {w.strip().strip("'\"") for w in tail.split(",") if w.strip() and w.strip() != "none"}


def test_the_registry_is_the_spec_files():
    found = sorted(p.stem for p in (ROOT / "metricore" / "specs").glob("*.py") if not p.stem.startswith("_"))
    assert list(names()) == found == list(METRICS)
    for name in names():
        assert get(name).name == name


def test_every_metric_folder_has_a_spec_and_back():
    folders = {
        p.name for p in (ROOT / "metrics").iterdir() if p.is_dir() and not p.name.startswith(("_", "."))
    }
    spaces = {p.name for p in (ROOT / "spaces").iterdir() if p.is_dir() and p.name != "index"}
    assert folders == set(METRICS) == spaces
    for name in METRICS:
        assert (ROOT / "metrics" / name / f"{name}.py").is_file()
        assert (ROOT / "spaces" / name / "app.py").is_file()


def test_unknown_names_are_refused_with_a_hint():
    with pytest.raises(ValueError, match=r"unknown metric 'anl'.*did you mean 'anls'"):
        get("anl")
    with pytest.raises(ValueError, match=r"did you mean 'docvqa'.*allowed: 'docvqa'"):
        get("anls").config("docvq")
    with pytest.raises(TypeError, match=r"unknown option\(s\) 'treshold'.*did you mean 'threshold'"):
        get("anls").bind("docvqa", treshold=0.4)


# --------------------------------------------------------------------------------------------
# bind: the one check
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name,config", CASES)
def test_bind_checks_every_declared_option(name, config):
    spec = get(name)
    declared = spec.config(config)
    for option in declared.options:
        bad = {"bool": 3, "number": "x", "integer": "x", "choice": object()}.get(option.type)
        if bad is not None and not option.open_choices:
            with pytest.raises((TypeError, ValueError), match=f"option `{option.name}`"):
                spec.bind(config, **{option.name: bad})
        if option.type in ("number", "integer") and math.isfinite(option.high):
            with pytest.raises(ValueError, match=f"option `{option.name}` must be in"):
                spec.bind(config, **{option.name: option.high + 1})
        if option.required:
            with pytest.raises(TypeError, match=f"option `{option.name}` is required"):
                spec.bind(config)
    required = {o.name: o.choices[0] if o.choices else "x" for o in declared.options if o.required}
    bound = spec.bind(config, **required)
    assert dict(bound.options) == {**declared.defaults, **required}


EXAMPLES = [
    (name, e.config, list(e.predictions), list(e.references), dict(e.options))
    for name, spec in METRICS.items()
    for e in spec.examples
]


@pytest.mark.parametrize(
    "name,config,preds,refs,options", EXAMPLES, ids=lambda v: v if isinstance(v, str) else ""
)
def test_declared_defaults_are_the_core_defaults(name, config, preds, refs, options):
    """The spec passes every default explicitly; the core, given none, must agree."""
    spec = get(name)
    chosen = spec.config(config).name
    bound = spec.bind(config, **options).run(preds, refs)
    raw = spec.compute(chosen, preds, refs, options)
    assert bound.signature == raw.signature
    assert bound.scores == raw.scores or all(
        a == b or (math.isnan(a) and math.isnan(b)) for a, b in zip(bound.scores, raw.scores)
    )


# --------------------------------------------------------------------------------------------
# The surfaces
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name,config", CASES)
def test_evaluate_module_offers_the_spec(name, config):
    spec = get(name).config(config)
    metric = evaluate.load(str(ROOT / "metrics" / name), config)
    with pytest.raises(TypeError, match="unknown option") as err:
        metric.compute(predictions=[], references=[], not_an_option=1)
    assert _allowed(str(err.value)) == set(spec.option_names) | COMPUTE_KEYWORDS


@pytest.mark.parametrize("name", list(METRICS))
def test_evaluate_module_lists_the_spec_configs(name):
    with pytest.raises(ValueError) as err:
        evaluate.load(str(ROOT / "metrics" / name), "no_such_config")
    assert _allowed(str(err.value)) == set(get(name).config_names)


def test_cli_lists_the_registry(capsys):
    with pytest.raises(SystemExit):
        cli_main(["score", "--metric", "no_such_metric", "--predictions", "x"])
    err = capsys.readouterr().err
    assert "invalid choice" in err
    listed = err.split("choose from", 1)[1]
    assert all(f"'{n}'" in listed or f" {n}" in listed for n in names())


@pytest.mark.parametrize("name,config", CASES)
def test_cli_offers_the_spec(name, config, tmp_path, capsys):
    preds = tmp_path / "p.jsonl"
    preds.write_text(json.dumps({"prediction": "a", "references": ["a"]}) + "\n", encoding="utf-8")
    argv = ["score", "--metric", name, "--config", config, "--predictions", str(preds)]
    code = cli_main([*argv, "--option", "not_an_option=1"])
    err = capsys.readouterr().err
    if name not in ROWS:  # not scored row by row: `metricore challenge`
        assert code == 2 and "metricore challenge" in err
        return
    assert code == 2 and "not_an_option" in err
    assert _allowed(err) == set(get(name).config(config).option_names)
    code = cli_main(["score", "--metric", name, "--config", "no_such_config", "--predictions", str(preds)])
    assert code == 2 and _allowed(capsys.readouterr().err) == set(get(name).config_names)


def test_challenge_task_metrics_are_the_specs_with_a_task_use():
    composite = {"score", "image_generation", "meteor_clip"}
    assert set(TASK_METRICS) - composite == {n for n in names() if get(n).task is not None}
    for name in set(TASK_METRICS) - composite:
        spec, task = get(name), TASK_METRICS[name]
        use = spec.task
        assert task.configs == use.configs
        declared = set().union(*(spec.config(c).option_names for c in use.configs)) - set(use.fixed)
        assert set(task.options) == declared | ({"score"} if len(use.scores) > 1 else set())
        for config in use.configs:  # a task needs prediction/reference pairs
            assert spec.config(config).inputs[0] in (("text", "alternatives"), ("structured", "structured"))
    assert set(TASK_METRICS["meteor_clip"].configs) == set(get("meteor").task.configs)


@pytest.mark.parametrize("name", ROWS)
def test_space_offers_the_spec(name):
    from metricore_hf.space import metric_space

    metric = get(name)
    space = metric_space(name, ROOT / "spaces" / name / "app.py")
    for config in metric.configs:
        offered = {c.name for c in space.controls if c.applies_to(config.name)}
        assert offered == {o.name for o in config.options if o.interactive}, config.name
        for control in space.controls:
            if control.applies_to(config.name):
                want = config.option(control.name).default
                if want is not None:
                    assert control.default_for(config.name) == want, (config.name, control.name)
    assert space.card_path == ROOT / "metrics" / name / "README.md"
    assert space.title == metric.title


def test_index_space_and_bundles_offer_every_metric():
    from metricore_hf.bundle import available
    from metricore_hf.space import index_spaces

    assert [s.name for s in index_spaces(ROOT / "spaces" / "index")] == list(names())
    assert available() == list(names())


# --------------------------------------------------------------------------------------------
# The result base
# --------------------------------------------------------------------------------------------

_CHALLENGE_ROWS = [
    {"task": t, "score": 0.5}
    for t in ("TextQA", "MathQA", "ImageGeneration", "ImageCaptioning", "VisualQA", "TRitW")
]
RESULT_CASES = EXAMPLES + [("challenge_score", "fbc2", _CHALLENGE_ROWS, [None] * 6, {"missing": "zero"})]


@pytest.mark.parametrize(
    "name,config,preds,refs,options", RESULT_CASES, ids=lambda v: v if isinstance(v, str) else ""
)
def test_every_result_follows_its_declaration(name, config, preds, refs, options):
    spec = get(name)
    bound = spec.bind(config, **options)
    r = bound.run(preds, refs)
    assert isinstance(r, MetricResult) and isinstance(r, spec.result_types)
    assert type(r).METRIC == name and spec_for(r) is spec
    assert isinstance(r.scores, list) and all(isinstance(s, float) for s in r.scores)
    n = len(r.scores)
    assert n == (len(preds) if spec.rows else len(r.tasks))
    headline = r.headline()
    assert headline and all(isinstance(v, float) for v in headline.values())
    for key in headline:  # every headline number is declared (its direction, its items)
        assert type(r).headline_info(key).key == key
    records = r.per_item()
    assert [rec["index"] for rec in records] == list(range(n))
    columns = r.columns()
    for rec, s in zip(records, r.scores):
        assert {"index", "id", "prediction", "closest", "score"} <= set(rec)
        assert rec["score"] == s or (math.isnan(s) and math.isnan(rec["score"]))
    for key, values in columns.items():
        assert len(values) == n and [rec[key] for rec in records] == list(values)
    out = r.as_dict()
    # the one rule: `scores` is a list; more per-item numbers are under `columns`
    assert out["scores"] == r.scores and out["signature"] == r.signature
    assert set(out.get("columns", {})) == set(columns) | ({"id"} if r.item_ids() is not None else set())
    for key, value in headline.items():
        assert out[key] == value or (math.isnan(value) and math.isnan(out[key]))
    main = r.main_key()
    if main is not None:
        head = type(r).headline_info(main)
        if head.mean and spec.rows:  # the main headline is the mean of the scores, on its scale
            mean = sum(r.scores) / n * r.item_scale()
            assert headline[main] == pytest.approx(mean, rel=1e-12, abs=1e-12)
    if spec.rows:
        why = bound.explain(preds, refs, r)
        assert len(why) == n and all(isinstance(w, str) for w in why)
        assert bound.cost(preds, refs) > 0


def test_per_item_predictions_are_the_scored_ones():
    r = get("one_minus_ned").bind().run(["kitten", "abc"], [["sitting", "kitten"], "abd"])
    assert [(x["prediction"], x["closest"], x["score"]) for x in r.per_item()] == [
        ("kitten", "kitten", 1.0),
        ("abc", "abd", pytest.approx(2 / 3)),
    ]


def test_cost_grows_with_the_work():
    spec = get("anls")
    bound = spec.bind("docvqa")
    base = bound.cost(["abc"], [["abd"]])  # mostly the request's fixed cost
    ten = bound.cost(["abc" * 100] * 10, [["abd" * 100] * 5] * 10)
    thousand = bound.cost(["abc" * 100] * 1000, [["abd" * 100] * 5] * 1000)
    assert base < ten < thousand
    assert thousand - base > 50 * (ten - base)  # the work part grows with the rows
    deep = spec.bind("anls_star").cost([[["a"] * 50]], [[["b"] * 50]])
    assert deep > spec.bind("anls_star").cost([["a"]], [["b"]])


def test_finding_a_results_spec_imports_no_other_metric():
    import subprocess
    import sys

    code = (
        "import sys; from metricore.metrics.ned import compute_one_minus_ned; "
        "from metricore.registry import spec_for; spec_for(compute_one_minus_ned(['a'], ['a'])); "
        "print(sorted(m for m in sys.modules if m.startswith('metricore.metrics.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    loaded = set(eval(out.stdout))
    assert loaded <= {"metricore.metrics.ned"}, loaded


def test_the_registry_is_not_listed_by_hand_elsewhere():
    """No source outside the registry lists four or more metric names (iterate the registry)."""
    import ast

    known = set(names())
    found = []
    for folder in ("metricore", "metricore_hf", "metrics", "spaces", "tests", "benchmarks", "scripts"):
        for path in (ROOT / folder).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                elts = (
                    node.elts
                    if isinstance(node, (ast.List, ast.Tuple, ast.Set))
                    else (node.keys if isinstance(node, ast.Dict) else [])
                )
                lits = {e.value for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
                if len(lits & known) >= 4:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, found


def test_registry_module_is_light():
    """Listing the metrics imports no spec (``metricore --metric`` choices, the index)."""
    import subprocess
    import sys

    code = (
        "import sys; from metricore import registry; registry.names(); "
        "print(sorted(m for m in sys.modules if m.startswith('metricore.specs.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert eval(out.stdout) == []
    assert registry.METRICS["anls"] is get("anls")
