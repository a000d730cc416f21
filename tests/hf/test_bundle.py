"""Deployability: every Space card is complete, ``scripts/bundle`` writes self-contained
folders, and a bundle installs into a fresh virtual env from its own ``requirements.txt``
only, where ``evaluate.load(<bundle folder>)`` computes offline (the same numbers as the core
here)."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from metricore import compute_one_minus_ned
from metricore_hf import bundle

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[2]
GRADIO = importlib.metadata.version("gradio")
SPACES = sorted(p.parent.name for p in (ROOT / "spaces").glob("*/app.py"))


def _header(card: str) -> dict:
    assert card.startswith("---\n"), "the card must open with a YAML header"
    return yaml.safe_load(card.split("---\n", 2)[1])


@pytest.mark.parametrize("name", SPACES)
def test_space_cards_are_complete(name):
    meta = _header((ROOT / "spaces" / name / "README.md").read_text(encoding="utf-8"))
    assert meta["title"] and meta["emoji"]
    assert meta["sdk"] == "gradio" and str(meta["sdk_version"]) == GRADIO
    assert meta["app_file"] == "app.py" and (ROOT / "spaces" / name / meta["app_file"]).is_file()
    assert isinstance(meta["tags"], list) and meta["tags"]


@pytest.fixture(scope="module")
def bundles(tmp_path_factory):
    out = tmp_path_factory.mktemp("bundles")
    assert bundle.main(["one_minus_ned", "meteor", "index", "--out", str(out)]) == 0
    return out


def test_bundle_is_self_contained(bundles):
    folder = bundles / "one_minus_ned"
    wheel = next(folder.glob("metricore-*-py3-none-any.whl"))
    assert {p.name for p in folder.iterdir()} == {
        "one_minus_ned.py",
        "README.md",
        "app.py",
        "requirements.txt",
        wheel.name,
    }
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {
        "metricore/__init__.py",
        "metricore/metrics/ned.py",
        "metricore_hf/evaluate_module.py",
        "metricore_hf/space/builder.py",
        "metricore/specs/one_minus_ned.py",
    } <= names
    reqs = (folder / "requirements.txt").read_text().splitlines()
    assert f"./{wheel.name}" in reqs
    assert not any(r.split("=")[0].strip() in ("metricore", "gradio") for r in reqs if not r.startswith("#"))
    assert f"evaluate=={importlib.metadata.version('evaluate')}" in reqs
    meta = _header((folder / "README.md").read_text(encoding="utf-8"))
    assert meta["title"] == "1-NED" and meta["app_file"] == "app.py" and str(meta["sdk_version"]) == GRADIO
    assert meta["python_version"] == f"{sys.version_info.major}.{sys.version_info.minor}"
    # METEOR brings its Debian WordNet; the index carries every app with its card
    assert (bundles / "meteor" / "packages.txt").read_text().split() == [
        "wordnet-base",
        "wordnet-sense-index",
    ]
    for name in bundle.available():
        assert (bundles / "index" / name / "app.py").is_file() and (
            bundles / "index" / name / "README.md"
        ).is_file()


def test_bundle_refuses_unknown_names(tmp_path, capsys):
    with pytest.raises(SystemExit):
        bundle.main(["nope", "--out", str(tmp_path)])
    assert "unknown metric(s) nope" in capsys.readouterr().err


def test_bundled_app_finds_the_card_beside_it(bundles):
    from metricore_hf import space

    alone = space.metric_space("one_minus_ned", bundles / "one_minus_ned" / "app.py")
    assert alone.card().startswith("# Metric Card for 1-NED")
    tabs = {s.name: s for s in space.index_spaces(bundles / "index")}
    assert list(tabs) == [n for n in bundle.available() if (bundles / "index" / n / "app.py").is_file()]
    assert tabs["anls"].card().startswith("# Metric Card for ANLS")


@pytest.mark.slow
def test_bundle_installs_into_a_fresh_venv_and_computes_offline(bundles, tmp_path):
    """The lightest metric's bundle, from its own requirements only (PyPI or pip's cache)."""
    folder = bundles / "one_minus_ned"
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "-r",
            "requirements.txt",
        ],
        cwd=folder,
        env=env,
        check=True,
        timeout=600,
    )
    preds, refs = ["kitten", "abc", "Хор", ""], ["sitting", "abd", ["хор", "x"], ""]
    script = (
        "import json, sys, evaluate, metricore\n"
        "m = evaluate.load(sys.argv[1])\n"
        "r = m.compute(predictions=json.loads(sys.argv[2]), references=json.loads(sys.argv[3]), lowercase=True)\n"
        "print(json.dumps({'result': r, 'core': metricore.__file__}))\n"
    )
    offline = dict(
        env,
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        HF_EVALUATE_OFFLINE="1",
        HF_HOME=str(tmp_path / "hf"),
        HF_DATASETS_CACHE=str(tmp_path / "hf" / "datasets"),
        HF_EVALUATE_CACHE=str(tmp_path / "hf" / "evaluate"),
        HF_MODULES_CACHE=str(tmp_path / "hf" / "modules"),
    )
    run = subprocess.run(
        [str(python), "-c", script, str(folder), json.dumps(preds), json.dumps(refs)],
        cwd=tmp_path,
        env=offline,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["core"].startswith(str(venv))  # the wheel's copy, not this checkout
    core = compute_one_minus_ned(preds, refs, lowercase=True)
    assert out["result"]["one_minus_ned"] == core.one_minus_ned
    assert out["result"]["scores"] == core.scores
    assert out["result"]["signature"] == core.signature
