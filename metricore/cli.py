"""Command line: ``metricore demo`` and ``metricore wordnet [--install] [--check]``
(also ``python -m metricore.cli ...``).

Exit codes: 0 success, 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import sys

from ._version import __version__


def _demo(args: argparse.Namespace) -> int:
    from .demo import demo_rows, format_table

    rows = demo_rows()
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
    else:
        print(format_table(rows))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="metricore", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"metricore {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="score the bundled sample with every metric and print a table")
    demo.add_argument("--json", action="store_true", help="print the rows as JSON")
    demo.set_defaults(func=_demo)
    sub.add_parser("wordnet", help="find or provision WordNet offline (metricore wordnet --help)")
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["wordnet"]:
        # its own options (--install, --target, --check) belong to metricore.wordnet
        from .wordnet import main as wordnet_main

        return wordnet_main(argv[1:])
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
