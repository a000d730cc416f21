"""The ``metricore`` command line (``metricore ...`` or ``python -m metricore.cli ...``).

``main`` parses the arguments; each subcommand lives in its own module (``score`` and
``demo`` in :mod:`metricore.cli.commands`, ``compare``, ``challenge``; file reading in
:mod:`metricore.cli.io`).
"""

from __future__ import annotations

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Run the command line (imported on call, so ``python -m metricore.cli.commands`` and
    ``import metricore.cli`` stay light)."""
    from metricore.cli.commands import main as run

    return run(argv)
