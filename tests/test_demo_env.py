"""The README's first command on a fresh virtual env: ``bash scripts/demo`` builds its env from
the run-time set only (requirements.txt, the project, Debian's WordNet) and scores the
bundled sample. The env must stay small (under 1 GB; it was 2.2 GB when one requirements
file served everything) and hold none of the test-only packages (torch, a browser driver,
evaluate, gradio, Java-based references). pip's cache makes the build take about a minute
here; it still downloads from PyPI what the cache lacks."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from metricore.registry import row_metrics

ROOT = Path(__file__).resolve().parents[1]
HEAVY = (
    "torch",
    "transformers",
    "accelerate",
    "playwright",
    "gradio",
    "evaluate",
    "datasets",
    "pycocoevalcap",
)


def _size(path: Path) -> int:
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def _inputs() -> bytes:
    """The files whose hash the set-up stamps (scripts/setup)."""
    return b"".join(
        (ROOT / name).read_bytes() for name in ("requirements.txt", "pyproject.toml", "setup.cfg", "setup.py")
    )


def _table(stdout: str) -> str:
    """The demo's table (the set-up's progress lines come before it)."""
    lines = stdout.splitlines()
    start = next(
        i
        for i, line in enumerate(lines)
        if line.split()[:6] == ["metric", "variant", "n", "score", "signature", "example"]
    )
    return "\n".join(lines[start:])


@pytest.mark.slow
def test_demo_builds_a_light_env_and_runs(tmp_path):
    venv = tmp_path / "venv"
    env = dict(os.environ, METRICORE_VENV=str(venv), PYTHON=sys.executable)
    env.pop("VIRTUAL_ENV", None)
    inputs = _inputs()
    started = time.monotonic()
    proc = subprocess.run(
        ["bash", "scripts/demo"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    seconds = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr[-3000:]
    table = _table(proc.stdout)
    lines = table.splitlines()
    assert {line.split()[0] for line in lines[2:]} == set(row_metrics())
    assert "meteor|variant:nltk" in table and "wordnet:3.0" in table

    listed = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "list", "--format=freeze"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.lower()
    names = {line.split("==")[0].replace("_", "-") for line in listed.splitlines()}
    assert not names & set(HEAVY), f"test-only packages in the demo env: {sorted(names & set(HEAVY))}"
    assert (venv / ".setup-stamp").read_text().startswith("runtime ")
    size = _size(venv)
    print(f"\ndemo env: {size / 2**20:.0f} MiB, {len(names)} packages, built and run in {seconds:.0f} s")
    assert size < 2**30

    # a second run reuses the env: no pip install (unless someone edited the files meanwhile)
    again = subprocess.run(
        ["bash", "scripts/demo"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert again.returncode == 0, again.stderr[-3000:]
    if _inputs() == inputs:
        assert "installing" not in again.stdout + again.stderr
    assert _table(again.stdout) == table

    # any Space runs from the demo env: scripts/space adds the [spaces] packages on first use
    from tests.spaces.servers import free_port, wait_ready

    port = free_port()
    log = tmp_path / "space.log"
    space_env = dict(env, GRADIO_SERVER_PORT=str(port), GRADIO_ANALYTICS_ENABLED="False", HF_HUB_OFFLINE="1")
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            ["bash", "scripts/space", "one_minus_ned"],
            cwd=ROOT,
            env=space_env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_ready(f"http://127.0.0.1:{port}/", proc, log, time.monotonic() + 600)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert "adding the Spaces' packages" in log.read_text()
