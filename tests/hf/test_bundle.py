"""Deployability: every Space card is complete, ``scripts/bundle`` writes self-contained
folders, and a bundle installs into a fresh virtual env from its own ``requirements.txt``
only, where ``evaluate.load(<bundle folder>)`` computes offline (the same numbers as the core
here). The bundle ships metricore as a source distribution: installed where a C compiler is,
METEOR 1.5 runs compiled; where the compiler fails, the install still succeeds and the
Python path runs, which the Space says at start-up."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
import tarfile
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
    sdist = next(folder.glob("metricore-*.tar.gz"))
    assert {p.name for p in folder.iterdir()} == {
        "one_minus_ned.py",
        "README.md",
        "app.py",
        "requirements.txt",
        sdist.name,
    }
    top = sdist.name[: -len(".tar.gz")]
    with tarfile.open(sdist) as archive:
        names = {n.removeprefix(top + "/") for n in archive.getnames()}
    assert {
        "setup.py",
        "setup.cfg",
        "pyproject.toml",
        "metricore/__init__.py",
        "metricore/metrics/ned.py",
        "metricore/metrics/meteor15/_fast.c",
        "metricore_hf/evaluate_module.py",
        "metricore_hf/space/builder.py",
        "metricore_hf/workers/pool.py",
        "metricore/specs/one_minus_ned.py",
        "metrics/one_minus_ned/one_minus_ned.py",
    } <= names
    assert not any(n.endswith((".so", ".pyc")) for n in names)  # nothing of this machine's build
    reqs = (folder / "requirements.txt").read_text().splitlines()
    assert f"./{sdist.name}" in reqs
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
    assert out["core"].startswith(str(venv))  # the installed copy, not this checkout
    core = compute_one_minus_ned(preds, refs, lowercase=True)
    assert out["result"]["one_minus_ned"] == core.one_minus_ned
    assert out["result"]["scores"] == core.scores
    assert out["result"]["signature"] == core.signature


def _path_in(target: Path) -> tuple[str, str, str]:
    """The METEOR 1.5 path a metricore installed into ``target`` runs, the reason the Space's
    start-up note gives, and where that metricore is."""
    script = (
        "import metricore\n"
        "from metricore.specs._cost import meteor15_backend\n"
        "print(*meteor15_backend(), metricore.__file__, sep='|')\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONHOME", "METRICORE_METEOR15_PURE_PYTHON")}
    run = subprocess.run(
        [sys.executable, "-c", script],
        cwd=target,
        env=dict(env, PYTHONPATH=str(target)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    name, why, where = run.stdout.strip().splitlines()[-1].split("|", 2)
    return name, why, where


@pytest.mark.slow
def test_bundle_builds_the_compiled_path_and_falls_back_without_a_compiler(bundles, tmp_path):
    """The source distribution of a bundle, installed with a C compiler, runs METEOR 1.5
    compiled; installed where the compiler fails (``CC=false``), it installs all the same and
    runs the Python path, and says why. (Only the package is built and installed, into a
    folder of its own: its dependencies are this environment's.)"""
    import shutil

    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler on this machine")
    sdist = next((bundles / "meteor").glob("metricore-*.tar.gz"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    for cc, want in ((None, "compiled"), ("false", "python")):
        target = tmp_path / want
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-deps",
                "--no-build-isolation",
                "--target",
                str(target),
                str(sdist),
            ],
            cwd=tmp_path,
            env=dict(env, CC=cc) if cc else env,
            check=True,
            timeout=600,
        )
        name, why, where = _path_in(target)
        assert where.startswith(str(target)), where
        assert name == want, why
        if want == "python":
            assert "not built" in why
