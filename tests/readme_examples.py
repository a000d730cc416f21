"""The README's code blocks, for the tests that run them (tests/test_readme.py runs every
runnable one; tests/cli, tests/hf run the named ones that need a context).

Markers are HTML comments on the lines right before a fence (several may stack):

* ``<!-- example: NAME -->``: the block is example ``NAME`` (:func:`example`);
* ``<!-- example-output: NAME -->``: the block is what example ``NAME`` prints
  (:func:`example_output`);
* ``<!-- output -->``: the block is what the runnable block just before it prints;
* ``<!-- fragment -->``: not runnable on its own (it needs a model, several processes, a
  set-up that takes minutes, or it serves forever); a named fragment is run by the test that
  names it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"

_MARKER = re.compile(r"^\s*<!--\s*(.*?)\s*-->\s*$")
_FENCE = re.compile(r"^```([\w-]*)\s*$")


@dataclass(frozen=True)
class Block:
    """One fenced block: its language tag, text (with a final newline), the README line of its
    opening fence and the markers right before it."""

    lang: str
    body: str
    line: int
    markers: tuple[str, ...]

    def marked(self, kind: str) -> str | None:
        """The argument of marker ``kind`` (``"example"`` -> ``"cli"``; ``""`` for a bare
        ``<!-- fragment -->``), ``None`` when the block has no such marker."""
        for m in self.markers:
            head, _, arg = m.partition(":")
            if head.strip() == kind:
                return arg.strip()
        return None

    @property
    def fragment(self) -> bool:
        return self.marked("fragment") is not None


def all_blocks(text: str | None = None) -> list[Block]:
    """Every fenced block of the README (or of ``text``), in order."""
    lines = (README.read_text(encoding="utf-8") if text is None else text).splitlines()
    found: list[Block] = []
    markers: list[str] = []
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if fence:
            start = i
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                i += 1
            if i == len(lines):
                raise ValueError(f"README.md:{start + 1}: a fenced block is never closed")
            found.append(
                Block(fence.group(1), "\n".join(lines[start + 1 : i]) + "\n", start + 1, tuple(markers))
            )
            markers = []
        elif (m := _MARKER.match(lines[i])) is not None:
            markers.append(m.group(1))
        elif lines[i].strip():
            markers = []
        i += 1
    return found


def blocks() -> dict[tuple[str, str], str]:
    """The named blocks: ``("example" | "example-output", NAME) -> text``."""
    found: dict[tuple[str, str], str] = {}
    for block in all_blocks():
        for kind in ("example", "example-output"):
            name = block.marked(kind)
            if name is None:
                continue
            if (kind, name) in found:
                raise ValueError(f"README has two {kind} blocks named {name!r}")
            found[(kind, name)] = block.body
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
