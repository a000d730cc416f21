"""The optional C extension (METEOR 1.5's compiled path) never stops an install: without a C
compiler ``pip`` builds the package without it, and METEOR 1.5 runs on its Python path."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _wheel(tmp_path: Path, env: dict[str, str]) -> list[str]:
    src = tmp_path / "metricore-checkout"
    src.mkdir()
    for name in ("pyproject.toml", "setup.cfg", "setup.py", "README.md"):
        shutil.copy2(REPO / name, src / name)
    for package in ("metricore", "metricore_hf", "metrics"):
        shutil.copytree(REPO / package, src / package, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    out = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(out), str(src)],
        check=True, env={**os.environ, **env}, capture_output=True, text=True,
    )  # fmt: skip
    (wheel,) = out.glob("metricore-*.whl")
    return zipfile.ZipFile(wheel).namelist()


@pytest.mark.slow
def test_without_a_compiler_the_package_builds_without_the_extension(tmp_path: Path) -> None:
    names = _wheel(tmp_path, {"CC": "/bin/false"})
    assert "metricore/metrics/meteor15/dispatch.py" in names
    assert not [n for n in names if n.endswith((".so", ".pyd"))]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler here")
def test_with_a_compiler_the_extension_is_in_the_wheel(tmp_path: Path) -> None:
    names = _wheel(tmp_path, {})
    for extension in ("_fast", "_paraphrase"):
        assert [
            n for n in names if n.startswith(f"metricore/metrics/meteor15/{extension}.") and n.endswith(".so")
        ]
    # the evaluate scripts, cards and requirements ship as package data of metricore_hf
    for name in ("anls", "one_minus_ned"):
        for file in (f"{name}.py", "README.md", "requirements.txt"):
            assert f"metricore_hf/metrics/{name}/{file}" in names
