"""Test-wide settings: no network, and every Hugging Face cache in a temporary directory.

The variables are set before anything imports ``evaluate``/``datasets`` so that
``evaluate.load("metrics/<name>")`` runs offline and leaves nothing in the user's cache.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_CACHE = tempfile.mkdtemp(prefix="metricore-tests-hf-")
for _var, _sub in (
    ("HF_HOME", "home"),
    ("HF_DATASETS_CACHE", "datasets"),
    ("HF_EVALUATE_CACHE", "evaluate"),
    ("HF_METRICS_CACHE", "metrics"),
    ("HF_MODULES_CACHE", "modules"),
):
    os.environ[_var] = os.path.join(_CACHE, _sub)
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_EVALUATE_OFFLINE"] = "1"
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


@pytest.fixture(autouse=True)
def _run_from_repo_root(monkeypatch):
    # Metric cards and tests load metrics by the relative path "metrics/<name>".
    monkeypatch.chdir(ROOT)
