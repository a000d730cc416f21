"""The ``metricore`` command line (``metricore ...`` or ``python -m metricore.cli ...``).

``main`` parses the arguments; each subcommand lives in its own module (``score`` and
``demo`` in :mod:`metricore.cli.commands`, ``compare``, ``challenge``; file reading in
:mod:`metricore.core.records`).
"""

from __future__ import annotations

import sys

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Run the command line. ``metricore --version`` answers before anything else is imported
    (a start-up check of services and images should not pay for the metrics); the
    subcommands are imported on call, so ``import metricore.cli`` stays light."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args in (["--version"], ["-V"]):
        from metricore._version import __version__

        print(f"metricore {__version__}")
        return 0
    from metricore.cli.commands import main as run

    return run(args)
