"""Installed as users install it: the wheel built from this checkout, installed with its
``[hf,coco]`` extras into a fresh virtual env (PyPI or pip's cache), used from a directory
that is not the repository. Every metric of the registry loads through
``metricore_hf.module_path`` and ``metricore_hf.load`` and computes its first worked example
as the checkout's core does; ``metricore doctor`` reports the compiled METEOR 1.5 path, and
after the wheel built without a compiler is installed over it, the Python path and why."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from metricore.registry import get, row_metrics

ROOT = Path(__file__).resolve().parents[1]

_SCRIPT = r"""
import json, sys
import evaluate
import metricore_hf
from metricore import registry

out = {}
for name, config, preds, refs, options in json.loads(sys.stdin.read()):
    path = metricore_hf.module_path(name)
    by_path = evaluate.load(path, config).compute(predictions=preds, references=refs, **options)
    by_load = metricore_hf.load(name, config).compute(predictions=preds, references=refs, **options)
    out[name] = {"path": path, "by_path": by_path, "by_load": by_load}
print(json.dumps(out))
"""


def _wheel(tmp_path: Path, env: dict[str, str], tag: str) -> Path:
    src = tmp_path / f"checkout-{tag}"
    src.mkdir()
    for name in ("pyproject.toml", "setup.cfg", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    for package in ("metricore", "metricore_hf", "metrics"):
        shutil.copytree(ROOT / package, src / package, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    out = tmp_path / f"wheels-{tag}"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(out), str(src)],
        check=True, env={**os.environ, **env}, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    (wheel,) = out.glob("metricore-*.whl")
    return wheel


def _examples() -> list[tuple[str, str, list, list, dict]]:
    """Each row metric's first worked example of its default config (structured values as
    JSON: the fresh env reads them back with the project's own codec)."""
    out = []
    for name in row_metrics():
        spec = get(name)
        ex = next(e for e in spec.examples if spec.config(e.config).name == spec.default_config)
        out.append((name, spec.default_config, list(ex.predictions), list(ex.references), dict(ex.options)))
    return out


@pytest.mark.slow
def test_the_wheel_installs_and_every_metric_loads_from_anywhere(tmp_path):
    compiled = _wheel(tmp_path, {}, "compiled")
    pure = _wheel(tmp_path, {"CC": "/bin/false"}, "pure")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["HF_HUB_OFFLINE"] = env["HF_DATASETS_OFFLINE"] = "1"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", f"{compiled}[hf,coco]"],
        env={**env, "HF_HUB_OFFLINE": "0"}, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr[-3000:]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    examples = _examples()
    run = subprocess.run(
        [str(python), "-c", _SCRIPT], input=json.dumps(examples), cwd=elsewhere, env=env,
        capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-4000:]
    got = json.loads(run.stdout)
    assert set(got) == set(row_metrics())
    for name, config, preds, refs, options in examples:
        want = get(name).bind(config, **options).run(preds, refs).as_dict()
        assert got[name]["path"].startswith(str(venv)), got[name]["path"]  # the installed scripts
        for key in ("by_path", "by_load"):
            assert got[name][key]["signature"] == want["signature"], (name, key)
            assert got[name][key]["scores"] == pytest.approx(want["scores"], abs=1e-12), (name, key)

    doctor = subprocess.run(
        [str(venv / "bin" / "metricore"), "doctor"], cwd=elsewhere, env=env, capture_output=True, text=True
    )
    print("\n--- metricore doctor, wheel built with a compiler ---\n" + doctor.stdout)
    assert "METEOR 1.5 path: compiled" in doctor.stdout, doctor.stdout + doctor.stderr
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", str(pure)],
        check=True, env=env, capture_output=True, timeout=600,
    )  # fmt: skip
    doctor = subprocess.run(
        [str(venv / "bin" / "metricore"), "doctor"], cwd=elsewhere, env=env, capture_output=True, text=True
    )
    print("--- metricore doctor, wheel built without a compiler ---\n" + doctor.stdout)
    assert "METEOR 1.5 path: python" in doctor.stdout, doctor.stdout + doctor.stderr
    version = subprocess.run(
        [str(venv / "bin" / "metricore"), "--version"], env=env, capture_output=True, text=True, check=True
    )
    assert "compiled extensions: not installed" in version.stdout
