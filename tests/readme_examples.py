"""The README's copy-paste examples, for the tests that run them.

A fenced code block preceded by ``<!-- example: NAME -->`` is example ``NAME``; a block
preceded by ``<!-- example-output: NAME -->`` is what that example prints.
"""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"

_BLOCK = re.compile(r"<!-- (example|example-output): ([\w-]+) -->\s*\n```[\w-]*\n(.*?)\n```", re.S)


def blocks() -> dict[tuple[str, str], str]:
    found: dict[tuple[str, str], str] = {}
    for kind, name, body in _BLOCK.findall(README.read_text(encoding="utf-8")):
        if (kind, name) in found:
            raise ValueError(f"README has two {kind} blocks named {name!r}")
        found[(kind, name)] = body + "\n"
    return found


def example(name: str) -> str:
    try:
        return blocks()[("example", name)]
    except KeyError:
        raise LookupError(f"README.md has no block marked <!-- example: {name} -->") from None


def example_output(name: str) -> str:
    try:
        return blocks()[("example-output", name)]
    except KeyError:
        raise LookupError(f"README.md has no block marked <!-- example-output: {name} -->") from None
