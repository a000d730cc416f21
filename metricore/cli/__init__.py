"""The ``metricore`` command line (``metricore ...`` or ``python -m metricore.cli ...``).

``main`` parses the arguments; each subcommand lives in its own module (``score`` and
``demo`` in :mod:`metricore.cli.commands`, ``compare``, ``challenge``; file reading in
:mod:`metricore.cli.io`).
"""

from metricore.cli.commands import main

__all__ = ["main"]
