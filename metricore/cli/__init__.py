"""The ``metricore`` command line (``metricore ...`` or ``python -m metricore.cli ...``).

``main`` parses the arguments; each subcommand lives in its own module (``score`` and
``demo`` in :mod:`metricore.cli.commands`, ``compare``, ``challenge``; file reading in
:mod:`metricore.core.records`).
"""

from __future__ import annotations

import sys

__all__ = ["main", "version_text"]


def version_text() -> str:
    """``metricore --version``: the version, and whether METEOR 1.5's compiled extensions are
    installed (seen on disk, nothing imported: ``metricore doctor`` says which path runs)."""
    from importlib.machinery import EXTENSION_SUFFIXES
    from pathlib import Path

    from metricore._version import __version__

    folder = Path(__file__).resolve().parents[1] / "metrics" / "meteor15"
    built = [
        name
        for name in ("_fast", "_paraphrase")
        if any((folder / (name + s)).exists() for s in EXTENSION_SUFFIXES)
    ]
    state = (
        "installed" if len(built) == 2 else (f"{built[0]} only" if built else "not installed (Python path)")
    )
    return (
        f"metricore {__version__}\nMETEOR 1.5 compiled extensions: {state} (`metricore doctor` for details)"
    )


def main(argv: list[str] | None = None) -> int:
    """Run the command line. ``metricore --version`` answers before anything else is imported
    (a start-up check of services and images should not pay for the metrics); the
    subcommands are imported on call, so ``import metricore.cli`` stays light."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args in (["--version"], ["-V"]):
        print(version_text())
        return 0
    from metricore.cli.commands import main as run

    return run(args)
