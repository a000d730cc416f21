"""``metricore doctor`` and ``metricore prepare``: what this install can do, and the one-time data
built ahead of time.

``metricore doctor`` prints, without changing anything: the package and Python versions and
where metricore is installed; the versions of the packages the metrics and integrations use
(or "not installed"); which METEOR 1.5 path runs (compiled or Python, and why); where WordNet
was found; the state of METEOR 1.5's data (pycocoevalcap's files and the paraphrase index);
and whether the references the tests and benchmarks compare against (Java, pycocoevalcap) are
there. ``--json`` gives the same as one JSON object. Exit code 0, or 1 when a core resource
is missing (WordNet for METEOR).

``metricore prepare`` builds what a first METEOR 1.5 call would build (its paraphrase index,
about 4 s with the compiled parser), so that no request of a service pays for it; run it in
an image build or at a service's start-up. Exit code 0, or 5 when the data's source
(``pip install 'metricore[coco]'``) is not installed.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import platform
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from metricore._version import __version__

__all__ = ["add_parser", "diagnose", "run_doctor", "run_prepare"]

#: the packages a user may ask about: run time, then the extras (hf, spaces, ru, coco, embed)
PACKAGES = (
    "numpy",
    "scipy",
    "rapidfuzz",
    "nltk",
    "evaluate",
    "datasets",
    "gradio",
    "pandas",
    "razdel",
    "pymorphy3",
    "wiki-ru-wordnet",
    "pycocoevalcap",
    "pycocotools",
    "torch",
    "transformers",
)


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def _java() -> str | None:
    """The first line of ``java -version``, or ``None`` when there is no Java."""
    java = shutil.which("java")
    if java is None:
        return None
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return f"{java} (does not run)"
    lines = (out.stderr or out.stdout).strip().splitlines()
    return f"{lines[0] if lines else 'version unknown'} ({java})"


def _wordnet() -> dict[str, Any]:
    from metricore.lexicon.wordnet import find_wordnet

    found = find_wordnet()
    if found is None:
        return {
            "found": None,
            "problem": "not found: install Debian's wordnet-base and wordnet-sense-index, then run "
            "`metricore wordnet --install` (a first METEOR call copies them itself when they are there)",
        }
    return {"found": str(found.corpus_dir), "source": found.source, "problem": None}


def _meteor15() -> dict[str, Any]:
    from metricore.metrics.meteor15 import backend
    from metricore.metrics.meteor15.status import data_status

    path, why = backend()
    status = data_status()
    return {"backend": path, "why": why, "data": status.lines(), "data_ready": status.ready}


def diagnose() -> dict[str, Any]:
    """Everything ``metricore doctor`` prints, as data."""
    return {
        "metricore": __version__,
        "python": f"{platform.python_version()} ({sys.executable})",
        "installed_at": str(Path(__file__).resolve().parents[1]),
        "packages": {name: _version(name) for name in PACKAGES},
        "meteor_1_5": _meteor15(),
        "wordnet": _wordnet(),
        "references": {"java": _java(), "pycocoevalcap": _version("pycocoevalcap")},
    }


def _lines(report: dict[str, Any]) -> list[str]:
    out = [
        f"metricore {report['metricore']}, Python {report['python']}",
        f"installed at {report['installed_at']}",
        "packages: "
        + ", ".join(
            f"{name} {v}" if v else f"{name} (not installed)" for name, v in report["packages"].items()
        ),
    ]
    meteor = report["meteor_1_5"]
    out.append(f"METEOR 1.5 path: {meteor['backend']} ({meteor['why']})")
    out += [f"METEOR 1.5 data: {line}" for line in meteor["data"]]
    wordnet = report["wordnet"]
    out.append(
        f"WordNet (METEOR): {wordnet['found']} (source: {wordnet['source']})"
        if wordnet["found"]
        else f"WordNet (METEOR): {wordnet['problem']}"
    )
    refs = report["references"]
    out.append(
        "references for tests and benchmarks: "
        f"Java {refs['java'] or 'not found (Debian: default-jre-headless)'}; "
        f"pycocoevalcap {refs['pycocoevalcap'] or 'not installed'}"
    )
    return out


def run_doctor(args: argparse.Namespace) -> int:
    report = diagnose()
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print("\n".join(_lines(report)))
    return 0 if report["wordnet"]["found"] else 1


def run_prepare(args: argparse.Namespace) -> int:
    from metricore.metrics.meteor15.status import prepare

    try:
        info = prepare()
    except ModuleNotFoundError as err:  # no pycocoevalcap: the message says which extra
        print(f"metricore prepare: error: {err}", file=sys.stderr)
        return 5
    except OSError as err:
        print(f"metricore prepare: error: {err}", file=sys.stderr)
        return 4
    print(info.summary())
    return 0


def add_parser(subparsers: Any) -> None:
    doctor = subparsers.add_parser(
        "doctor", help="what this install can do: versions, METEOR 1.5's path and data, WordNet, references"
    )
    doctor.add_argument("--json", action="store_true", help="one JSON object instead of lines")
    doctor.set_defaults(func=run_doctor)
    prepare = subparsers.add_parser(
        "prepare", help="build METEOR 1.5's paraphrase index ahead of time (images, services)"
    )
    prepare.set_defaults(func=run_prepare)
