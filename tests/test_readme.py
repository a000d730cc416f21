"""Every Python and shell block of README.md runs, and prints what the README shows.

Conventions (markers: tests/readme_examples.py):

* Every ```` ```python ```` and ```` ```bash ```` block runs, except those marked
  ``<!-- fragment -->`` (they need a model, several processes, or a set-up that takes
  minutes); a named fragment (``<!-- example: NAME -->``) must be run by another test, which
  :func:`test_named_fragments_are_run_elsewhere` checks.
* A Python block is self-contained (copy-paste it alone): each runs in a fresh namespace, in
  a fresh empty working directory (so that nothing depends on being at the repository root).
  A statement followed by a comment ``# -> <text>`` (continued on lines ``#    <text>``)
  shows the ``repr`` of its value: it must be an expression, and its repr must match the
  text as a doctest would (``...`` matches anything, runs of whitespace are equal).
* A shell block runs under ``bash -eu -o pipefail`` at the repository root, with the virtual
  env's ``bin`` first on ``PATH`` (as after ``. .venv/bin/activate``). A block marked
  ``<!-- output -->`` (or ``<!-- example-output: NAME -->`` for example ``NAME``) right after
  it is what it prints on stdout, matched the same way.
"""

from __future__ import annotations

import ast
import doctest
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.readme_examples import Block, all_blocks

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ("python", "py")
SHELL = ("bash", "sh", "shell", "console")
_CHECKER = doctest.OutputChecker()
_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

BLOCKS = all_blocks()
RUNNABLE = [b for b in BLOCKS if b.lang in PYTHON + SHELL and not b.fragment]


def _id(block: Block) -> str:
    return f"{block.lang}@{block.line}"


def matches(shown: str, got: str) -> bool:
    return _CHECKER.check_output(shown.strip() + "\n", got.strip() + "\n", _FLAGS)


def shown_values(source: str) -> list[tuple[ast.stmt, str | None]]:
    """The block's top-level statements, each with the ``# ->`` text after it (or ``None``)."""
    lines = source.splitlines()
    tree = ast.parse(source)
    out: list[tuple[ast.stmt, str | None]] = []
    for k, stmt in enumerate(tree.body):
        end = tree.body[k + 1].lineno - 1 if k + 1 < len(tree.body) else len(lines)
        shown: list[str] = []
        for text in lines[stmt.end_lineno : end]:  # type: ignore[misc]
            text = text.strip()
            if text.startswith("# -> "):
                shown.append(text[5:])
            elif shown and text.startswith("#    "):
                shown.append(text[5:])
            elif shown:
                break
        out.append((stmt, " ".join(shown) if shown else None))
    return out


def run_python(block: Block, cwd: Path) -> None:
    namespace: dict[str, object] = {"__name__": "__readme__"}
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        for stmt, shown in shown_values(block.body):
            ast.increment_lineno(stmt, block.line)  # tracebacks and messages give README lines
            if shown is None:
                module = ast.Module(body=[stmt], type_ignores=[])
                exec(compile(module, "README.md", "exec"), namespace)
                continue
            where = f"README.md:{stmt.lineno}"
            assert isinstance(stmt, ast.Expr), f"{where}: a `# ->` comment follows a non-expression"
            value = eval(compile(ast.Expression(stmt.value), "README.md", "eval"), namespace)
            got = repr(value)
            assert matches(shown, got), f"{where}: README shows\n  {shown}\ngot\n  {got}"
    finally:
        os.chdir(previous)


def expected_output(block: Block) -> str | None:
    """The shown stdout of a shell block: the block right after it marked as its output."""
    k = BLOCKS.index(block)
    if k + 1 == len(BLOCKS):
        return None
    after = BLOCKS[k + 1]
    name = block.marked("example")
    if after.marked("output") is not None or (name and after.marked("example-output") == name):
        return after.body
    return None


@pytest.mark.parametrize("block", RUNNABLE, ids=_id)
def test_readme_block(block, tmp_path):
    if block.lang in PYTHON:
        run_python(block, tmp_path)
        return
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    proc = subprocess.run(
        ["bash", "-eu", "-o", "pipefail", "-c", block.body],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, f"README.md:{block.line} failed:\n{proc.stderr}"
    shown = expected_output(block)
    if shown is not None:
        assert matches(shown, proc.stdout), f"README.md:{block.line}: shows\n{shown}\nprinted\n{proc.stdout}"


def test_every_code_block_is_run_or_marked():
    """A code block in a language this test cannot run is an output or plain text."""
    for block in BLOCKS:
        if block.lang in PYTHON + SHELL:
            continue
        k = BLOCKS.index(block)
        is_output = block.marked("output") is not None or block.marked("example-output") is not None
        assert is_output or block.lang in ("", "text"), (
            f"README.md:{block.line}: a ```{block.lang} block is neither run nor marked as an output"
        )
        if is_output:
            before = BLOCKS[k - 1] if k else None
            assert before is not None and (before.lang in SHELL or before.marked("example") is not None), (
                f"README.md:{block.line}: an output block after neither a shell block nor a named example"
            )


def test_named_fragments_are_run_elsewhere():
    tests = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("test_*.py"))
    for block in BLOCKS:
        name = block.marked("example")
        if block.fragment and name:
            assert f'example("{name}")' in tests, f"README example {name!r} is a fragment no test runs"


def test_the_conventions_are_enforced():
    """The checks above can fail: a wrong shown value, a marker in the wrong place."""
    with pytest.raises(AssertionError, match="README shows"):
        run_python(Block("python", "1 + 1\n# -> 3\n", 1, ()), Path.cwd())
    run_python(Block("python", "x = [0.1 + 0.2, 2]\nx\n# -> [0.3000...,\n#    2]\n", 1, ()), Path.cwd())
    with pytest.raises(AssertionError, match="non-expression"):
        run_python(Block("python", "y = 1\n# -> 1\n", 1, ()), Path.cwd())
    with pytest.raises(ValueError, match="never closed"):
        all_blocks("```python\npass\n")
    (first,) = all_blocks("<!-- example: a -->\n<!-- fragment -->\n```python\npass\n```\n")
    assert first.fragment and first.marked("example") == "a" and first.line == 3


@pytest.mark.parametrize("command", [[], ["score"], ["compare"], ["challenge"], ["demo"], ["wordnet"]])
def test_cli_help_is_plain_text(command):
    """The README sends readers to ``--help``; it must not show the docstrings' RST markup."""
    proc = subprocess.run(
        [sys.executable, "-m", "metricore.cli", *command, "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "``" not in proc.stdout and ":mod:" not in proc.stdout and ":func:" not in proc.stdout


def _bench_block(text: str) -> str:
    start, end = text.index("<!-- bench:start -->"), text.index("<!-- bench:end -->")
    return text[start:end]


def test_readme_speed_figures_are_the_benchmark_tables():
    """A speed-up quoted in the README's prose ("13.8x") is one the benchmark block it quotes
    holds (benchmarks/run.py regenerates the block, so a figure typed by hand goes stale)."""
    import re

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = _bench_block(text)
    prose = text.replace(block, "")
    quoted = set(re.findall(r"(?<![\w.])(\d[\d,]*\.\d+)x\b", prose))
    in_table = set(re.findall(r"(?<![\w.])(\d[\d,]*\.\d+)x\b", block))
    assert quoted <= in_table, f"README figures not in the benchmark block: {sorted(quoted - in_table)}"


def test_readme_names_every_metric_of_the_registry():
    from metricore.registry import names, row_metrics

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    table = text[text.index("| metric | folder |") : text.index("\n\n", text.index("| metric | folder |"))]
    assert {line.split("`metrics/")[1].split("`")[0] for line in table.splitlines()[2:]} == set(names())
    cli = text[text.index("- **Metrics and options**") :].split("\n- ", 1)[0]
    assert all(f"`{name}`" in cli for name in row_metrics())
