"""Write a self-contained folder per metric, ready to upload as a Hugging Face Space (which
is also how the Hub hosts an ``evaluate`` metric repo)::

    scripts/bundle                       # every metric and the index, into dist/bundles/
    scripts/bundle one_minus_ned anls --out /tmp/bundles
    python -m metricore_hf.bundle --help

``<out>/<name>/`` holds:

``<name>.py``
    the ``evaluate`` metric script (``evaluate.load("<out>/<name>")`` finds it by the folder
    name, as ``evaluate.load("<org>/<name>")`` does once uploaded);
``README.md``
    the metric card, whose YAML header is the Space card (``sdk: gradio``, ``app_file:
    app.py``); ``sdk_version`` is set to the installed Gradio and ``python_version`` to this
    interpreter's, the versions the bundle was built and tested with;
``app.py``
    the Space (it shows the card beside it);
``metricore-<version>-py3-none-any.whl``
    the core package and the Hugging Face integrations, built from this checkout;
``requirements.txt``
    the wheel (``./metricore-....whl``, or ``--wheel-url``) and the metric's and Space's
    dependencies pinned to the versions installed here. Gradio is left out: a Space installs
    the ``sdk_version`` of its card, and a second Gradio pin could only conflict with it;
``packages.txt``
    Debian packages, when the Space needs some (METEOR: WordNet).

``<out>/index/`` is the index Space: its ``app.py`` and card, and each metric's app and card
in ``<out>/index/<name>/``.

This module imports neither ``gradio`` nor ``evaluate``; it runs ``pip wheel`` once.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from metricore import registry

__all__ = [
    "available",
    "build_wheel",
    "requirements",
    "space_card",
    "bundle_metric",
    "bundle_index",
    "main",
]

REPO = Path(__file__).resolve().parents[1]
#: provided by the Space itself (``sdk_version``), or by the wheel
_NOT_PINNED = {"gradio", "metricore"}
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_YAML = re.compile(r"\A---[ \t]*\n(.*?\n)---[ \t]*\n", re.S)


def available(repo: Path = REPO) -> list[str]:
    """The metrics that have both an ``evaluate`` script and a Space in ``repo``."""
    return [
        n
        for n in registry.names()
        if (repo / "metrics" / n / f"{n}.py").is_file() and (repo / "spaces" / n / "app.py").is_file()
    ]


def build_wheel(dest: Path, repo: Path = REPO) -> Path:
    """Build the project's wheel into ``dest`` and return its path.

    The build runs on a fresh copy of the packaging files and packages (a build in the
    checkout would reuse its ``build/`` folder, where files deleted from the sources live
    on), with ``pip wheel`` and without build isolation when setuptools is at hand, so that
    no network is needed.
    """
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="metricore-src-") as tmp:
        src = Path(tmp)
        for name in ("pyproject.toml", "setup.cfg", "setup.py", "README.md", "LICENSE"):
            if (repo / name).is_file():
                shutil.copy2(repo / name, src / name)
        for package in ("metricore", "metricore_hf", "metrics"):
            shutil.copytree(
                # no compiled extension of this machine: the wheel stays py3-none-any
                # (METRICORE_PURE_PYTHON_BUILD), and METEOR 1.5 takes its Python path there
                repo / package,
                src / package,
                ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", "*.pyd"),
            )
        env = {**os.environ, "METRICORE_PURE_PYTHON_BUILD": "1"}
        base = [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--quiet",
            "--wheel-dir",
            str(dest),
            str(src),
        ]
        try:
            import setuptools  # noqa: F401

            subprocess.run([*base[:4], "--no-build-isolation", *base[4:]], check=True, env=env)
        except ImportError:
            subprocess.run(base, check=True, env=env)
    wheels = sorted(dest.glob("metricore-*.whl"))
    if len(wheels) != 1:
        raise RuntimeError(
            f"bundle: expected one metricore wheel in {dest}, found {[w.name for w in wheels]}"
        )
    return wheels[0]


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirements(files: Sequence[Path], wheel: str) -> list[str]:
    """``wheel`` first, then each distribution named in ``files`` once, pinned to its
    installed version (lines naming an uninstalled one are kept as written); comments,
    Gradio and ``metricore`` itself are dropped."""
    out, seen = [wheel], set()
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            line = line.split("#", 1)[0].strip()
            match = _NAME.match(line)
            if not match:
                continue
            name = match.group(1)
            key = _canonical(name)
            if key in _NOT_PINNED or key in seen:
                continue
            seen.add(key)
            try:
                out.append(f"{name}=={importlib.metadata.version(name)}")
            except importlib.metadata.PackageNotFoundError:
                out.append(line)
    return out


def space_card(card: str) -> str:
    """``card`` with its YAML header's ``sdk_version`` set to the installed Gradio and a
    ``python_version`` of this interpreter (the pinned requirements need it)."""
    match = _YAML.match(card)
    if not match:
        raise ValueError("bundle: the card has no YAML header (--- ... ---)")
    header = match.group(1)
    gradio = importlib.metadata.version("gradio")
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    for key, value in (("sdk_version", gradio), ("python_version", f'"{python}"')):
        line = re.compile(rf"^{key}:.*$", re.M)
        header = line.sub(f"{key}: {value}", header) if line.search(header) else header + f"{key}: {value}\n"
    return f"---\n{header}---\n" + card[match.end() :]


def _write_common(
    folder: Path, wheel: Path, wheel_url: str | None, req_files: list[Path], packages: list[Path]
) -> None:
    if wheel_url is None:
        shutil.copy2(wheel, folder / wheel.name)
    reference = wheel_url or f"./{wheel.name}"
    lines = requirements(req_files, reference)
    (folder / "requirements.txt").write_text(
        "# Written by metricore_hf.bundle. Gradio comes from the card's sdk_version.\n"
        + "\n".join(lines)
        + "\n",
        encoding="utf-8",
    )
    debs = list(
        dict.fromkeys(line.strip() for p in packages for line in p.read_text().splitlines() if line.strip())
    )
    if debs:
        (folder / "packages.txt").write_text("\n".join(debs) + "\n", encoding="utf-8")


def bundle_metric(
    name: str, out: Path, wheel: Path, *, wheel_url: str | None = None, repo: Path = REPO
) -> Path:
    """Write ``out/<name>/`` (see the module docstring) and return it."""
    metric, app = repo / "metrics" / name, repo / "spaces" / name
    if not (metric / f"{name}.py").is_file() or not (app / "app.py").is_file():
        raise ValueError(f"bundle: unknown metric {name!r}; available: {', '.join(available(repo))}")
    folder = out / name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    shutil.copy2(metric / f"{name}.py", folder / f"{name}.py")
    shutil.copy2(app / "app.py", folder / "app.py")
    (folder / "README.md").write_text(
        space_card((metric / "README.md").read_text(encoding="utf-8")), encoding="utf-8"
    )
    req_files = [p for p in (metric / "requirements.txt", app / "requirements.txt") if p.is_file()]
    _write_common(folder, wheel, wheel_url, req_files, [p for p in (app / "packages.txt",) if p.is_file()])
    return folder


def bundle_index(
    names: Sequence[str], out: Path, wheel: Path, *, wheel_url: str | None = None, repo: Path = REPO
) -> Path:
    """Write ``out/index/``: the index Space with the apps and cards of ``names``."""
    folder = out / "index"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    shutil.copy2(repo / "spaces" / "index" / "app.py", folder / "app.py")
    (folder / "README.md").write_text(
        space_card((repo / "spaces" / "index" / "README.md").read_text(encoding="utf-8")), encoding="utf-8"
    )
    req_files, packages = [], []
    for name in names:
        (folder / name).mkdir()
        shutil.copy2(repo / "spaces" / name / "app.py", folder / name / "app.py")
        shutil.copy2(repo / "metrics" / name / "README.md", folder / name / "README.md")
        req_files += [
            p
            for p in (
                repo / "metrics" / name / "requirements.txt",
                repo / "spaces" / name / "requirements.txt",
            )
            if p.is_file()
        ]
        packages += [p for p in (repo / "spaces" / name / "packages.txt",) if p.is_file()]
    _write_common(folder, wheel, wheel_url, req_files, packages)
    return folder


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bundle", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "names", nargs="*", help="metrics to bundle, or 'index' (default: every metric and the index)"
    )
    parser.add_argument(
        "--out", type=Path, default=REPO / "dist" / "bundles", help="output folder (default: dist/bundles)"
    )
    parser.add_argument(
        "--wheel-url", help="reference the wheel by this URL in requirements.txt instead of shipping it"
    )
    args = parser.parse_args(argv)
    metrics = available()
    names = list(args.names) or [*metrics, "index"]
    unknown = [n for n in names if n != "index" and n not in metrics]
    if unknown:
        parser.error(f"unknown metric(s) {', '.join(unknown)}; available: {', '.join(metrics)}, index")
    with tempfile.TemporaryDirectory(prefix="metricore-wheel-") as tmp:
        wheel = build_wheel(Path(tmp))
        for name in names:
            folder = (
                bundle_index(metrics, args.out, wheel, wheel_url=args.wheel_url)
                if name == "index"
                else bundle_metric(name, args.out, wheel, wheel_url=args.wheel_url)
            )
            print(f"bundle: {folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
