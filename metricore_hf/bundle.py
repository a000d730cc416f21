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
``metricore-<version>.tar.gz``
    the core package and the Hugging Face integrations as a source distribution built from
    this checkout. The Space's ``pip`` builds it, with METEOR 1.5's C extension where the
    machine has a compiler (a Hugging Face Space build has one) and without it where it has
    none (an optional extension: the Python path computes the same scores, slower); the
    Space says at start-up which path runs;
``requirements.txt``
    the package (``./metricore-....tar.gz``, or ``--package-url``) and the metric's and
    Space's dependencies pinned to the versions installed here. Gradio is left out: a Space
    installs the ``sdk_version`` of its card, and a second Gradio pin could only conflict
    with it;
``packages.txt``
    Debian packages, when the Space needs some (METEOR: WordNet).

``<out>/index/`` is the index Space: its ``app.py`` and card, and each metric's app and card
in ``<out>/index/<name>/``.

This module imports neither ``gradio`` nor ``evaluate``; it runs ``setup.py sdist`` once.
"""

from __future__ import annotations

import argparse
import importlib.metadata
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
    "build_sdist",
    "requirements",
    "space_card",
    "bundle_metric",
    "bundle_index",
    "main",
]

REPO = Path(__file__).resolve().parents[1]
#: provided by the Space itself (``sdk_version``), or by the package
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


#: what a source distribution is built from (besides the packages)
_BUILD_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "MANIFEST.in", "README.md", "LICENSE")
#: the folders it ships: the packages and the evaluate scripts (package data of metricore_hf)
_SOURCE_DIRS = ("metricore", "metricore_hf", "metrics")


def build_sdist(dest: Path, repo: Path = REPO) -> Path:
    """Build the project's source distribution into ``dest`` and return its path.

    The build runs on a fresh copy of the packaging files, packages and evaluate scripts (a
    build in the checkout would reuse its ``build/`` folder, where files deleted from the
    sources live on), without this machine's compiled extension or caches; ``setup.py
    sdist`` needs no network. ``pip install`` of it compiles METEOR 1.5's extension when a
    compiler is there (``setup.py``: an optional extension).
    """
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="metricore-src-") as tmp:
        src = Path(tmp)
        for name in _BUILD_FILES:
            if (repo / name).is_file():
                shutil.copy2(repo / name, src / name)
        for folder in _SOURCE_DIRS:
            shutil.copytree(
                repo / folder,
                src / folder,
                ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", "*.pyd", "*.egg-info"),
            )
        subprocess.run(
            [sys.executable, "setup.py", "-q", "sdist", "--formats=gztar", "--dist-dir", str(dest)],
            cwd=src,
            check=True,
            stdout=subprocess.DEVNULL,
        )
    found = sorted(dest.glob("metricore-*.tar.gz"))
    if len(found) != 1:
        raise RuntimeError(
            f"bundle: expected one metricore source distribution in {dest}, found {[f.name for f in found]}"
        )
    return found[0]


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirements(files: Sequence[Path], package: str) -> list[str]:
    """``package`` first, then each distribution named in ``files`` once, pinned to its
    installed version (lines naming an uninstalled one are kept as written); comments,
    Gradio and ``metricore`` itself are dropped."""
    out, seen = [package], set()
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
    folder: Path, package: Path, package_url: str | None, req_files: list[Path], packages: list[Path]
) -> None:
    if package_url is None:
        shutil.copy2(package, folder / package.name)
    reference = package_url or f"./{package.name}"
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
    name: str, out: Path, package: Path, *, package_url: str | None = None, repo: Path = REPO
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
    _write_common(
        folder, package, package_url, req_files, [p for p in (app / "packages.txt",) if p.is_file()]
    )
    return folder


def bundle_index(
    names: Sequence[str], out: Path, package: Path, *, package_url: str | None = None, repo: Path = REPO
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
    _write_common(folder, package, package_url, req_files, packages)
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
        "--package-url",
        "--wheel-url",
        dest="package_url",
        help="reference the package by this URL in requirements.txt instead of shipping it",
    )
    args = parser.parse_args(argv)
    metrics = available()
    names = list(args.names) or [*metrics, "index"]
    unknown = [n for n in names if n != "index" and n not in metrics]
    if unknown:
        parser.error(f"unknown metric(s) {', '.join(unknown)}; available: {', '.join(metrics)}, index")
    with tempfile.TemporaryDirectory(prefix="metricore-sdist-") as tmp:
        package = build_sdist(Path(tmp))
        for name in names:
            folder = (
                bundle_index(metrics, args.out, package, package_url=args.package_url)
                if name == "index"
                else bundle_metric(name, args.out, package, package_url=args.package_url)
            )
            print(f"bundle: {folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
