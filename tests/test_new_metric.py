"""Adding a metric is new files only: ``metricore new-metric NAME`` in a temporary copy of the
repository writes a working placeholder metric, no existing file changes, and that copy's own
registry, layer, CLI, ``evaluate``, card and Space tests pass for the new name (the Space is
started as a server on loopback and scored through its API), with ruff and mypy clean."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

NAME = "sample_exact"
_SKIP = shutil.ignore_patterns(
    ".git", ".venv", "__pycache__", "*.pyc", "*.so", ".pytest_cache", ".ruff_cache", ".mypy_cache",
    ".hypothesis", "dist", "build", "*.egg-info", "benchmarks", "docs",
)  # fmt: skip


def _digests(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and ".pytest_cache" not in p.parts
    }


def _run(args: list[str], cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTEST_XDIST_WORKER", None)
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
def test_new_metric_is_new_files_and_passes_every_surface(tmp_path):
    copy = tmp_path / "repo"
    shutil.copytree(ROOT, copy, ignore=_SKIP)
    before = _digests(copy)

    made = _run([sys.executable, "-m", "metricore.cli", "new-metric", NAME], copy)
    assert made.returncode == 0, made.stderr
    after = _digests(copy)
    changed = [p for p in before if after.get(p) != before[p]]
    assert changed == [], f"existing files changed: {changed}"
    added = sorted(set(after) - set(before))
    listed = [line.strip() for line in made.stdout.splitlines() if line.strip() and " " not in line.strip()]
    assert added == sorted(listed)
    assert len(added) == 9, added

    again = _run([sys.executable, "-m", "metricore.cli", "new-metric", NAME], copy)
    assert again.returncode == 2 and "exists already" in again.stderr

    new_files = [p for p in added if p.endswith(".py")]
    lint = _run([sys.executable, "-m", "ruff", "check", *new_files], copy)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    fmt = _run([sys.executable, "-m", "ruff", "format", "--check", *new_files], copy)
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr
    types = _run([sys.executable, "-m", "mypy", *[p for p in new_files if not p.startswith("tests/")]], copy)
    assert types.returncode == 0, types.stdout + types.stderr

    selection = " or ".join(
        (
            NAME,
            "the_registry_is",
            "every_metric_folder",
            "index_space_and_bundles",
            "challenge_task_metrics",
            "cli_lists_the_registry",
            "test_imports_point_down",
            "every_module_belongs",
        )
    )
    tests = _run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-rA",
            "-p",
            "no:cacheprovider",
            "tests/test_registry.py",
            "tests/test_layers.py",
            "tests/hf/test_metric_cards.py",
            f"tests/metrics/test_{NAME}.py",
            "tests/spaces/test_spaces_api.py",
            "-k",
            selection,
        ],
        copy,
    )
    out = tests.stdout + tests.stderr
    assert tests.returncode == 0, out[-6000:]
    passed = {line.split(" ", 1)[1].strip() for line in out.splitlines() if line.startswith("PASSED ")}
    for expected in (
        f"tests/test_registry.py::test_bind_checks_every_declared_option[{NAME}-default]",
        f"tests/test_registry.py::test_evaluate_module_offers_the_spec[{NAME}-default]",
        f"tests/test_registry.py::test_cli_offers_the_spec[{NAME}-default]",
        f"tests/test_registry.py::test_space_offers_the_spec[{NAME}]",
        "tests/test_registry.py::test_index_space_and_bundles_offer_every_metric",
        "tests/test_registry.py::test_challenge_task_metrics_are_the_specs_with_a_task_use",
        f"tests/test_layers.py::test_imports_point_down[metricore/specs/{NAME}.py]",
        f"tests/hf/test_metric_cards.py::test_card_examples_run[{NAME}]",
        f"tests/spaces/test_spaces_api.py::test_every_example_equals_the_core[{NAME}-0]",
        f"tests/spaces/test_spaces_api.py::test_every_ui_endpoint_scores_the_first_example_from_the_table[{NAME}]",
        f"tests/spaces/test_spaces_api.py::test_every_space_refuses_bad_requests_with_a_message[{NAME}]",
        f"tests/metrics/test_{NAME}.py::test_bad_input_names_the_row",
    ):
        assert expected in passed, f"{expected} did not pass:\n{out[-4000:]}"

    score = _run(
        [sys.executable, "-m", "metricore.cli", "score", "--metric", NAME, "--predictions", "in.jsonl"],
        copy,
    )
    assert score.returncode == 4  # no such file: the metric is known to the CLI
    (copy / "in.jsonl").write_text(
        '{"prediction": "a", "references": ["a", "b"]}\n{"prediction": "c", "references": "d"}\n'
    )
    score = _run(
        [sys.executable, "-m", "metricore.cli", "score", "--metric", NAME, "--predictions", "in.jsonl"],
        copy,
    )
    assert score.returncode == 0 and f'"{NAME}": 0.5' in score.stdout, score.stderr
