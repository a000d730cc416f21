"""Imports between metricore's subpackages point one way: a layer imports only lower layers
(and its own), never a higher one. Read from the source (every ``import``/``from`` statement,
including those inside functions), so a lazy import cannot hide a wrong direction."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "metricore"

#: subpackage (or top-level module) -> layer; a module may import its own layer and lower ones
LAYERS = {
    "_version": 0,
    "core": 0,
    "lexicon": 1,
    "stats": 1,
    "vision": 1,
    "text": 2,
    "metrics": 3,
    "specs": 4,
    "registry": 4,
    "intervals": 4,
    "challenge": 4,
    "pycocoevalcap": 4,
    "cli": 5,
    "__init__": 6,
}


def _part(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "metricore":
        return None
    return parts[1] if len(parts) > 1 else "__init__"


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                raise AssertionError(
                    f"{path}:{node.lineno}: relative import (metricore uses absolute imports)"
                )
            base = node.module or ""
            if base != "metricore":
                found.append((node.lineno, base))
                continue
            for alias in node.names:  # `from metricore import registry` names a module
                is_module = (PACKAGE / f"{alias.name}.py").exists() or (PACKAGE / alias.name).is_dir()
                found.append((node.lineno, f"metricore.{alias.name}" if is_module else "metricore"))
    return found


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "data" not in p.relative_to(PACKAGE).parts)


def test_every_module_belongs_to_a_layer():
    for path in _modules():
        part = path.relative_to(PACKAGE).with_suffix("").parts[0]
        assert part in LAYERS, f"{path}: add its subpackage to LAYERS"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_point_down(path):
    own = path.relative_to(PACKAGE).with_suffix("").parts[0]
    wrong = []
    for line, module in _imports(path):
        target = _part(module)
        if target is None or target == own or target not in LAYERS:
            continue
        if own != "__init__" and target == "__init__":
            wrong.append(f"line {line}: `import metricore` (name the module)")
        elif LAYERS[target] > LAYERS[own]:
            wrong.append(f"line {line}: {module} (layer {LAYERS[target]}) from layer {LAYERS[own]}")
    assert not wrong, f"{path.relative_to(ROOT)} imports upward:\n" + "\n".join(wrong)


def test_core_and_text_import_no_metric_stats_or_cli():
    # the rule of the issue, stated directly
    for sub in ("core", "text"):
        for path in (PACKAGE / sub).rglob("*.py"):
            for line, module in _imports(path):
                assert _part(module) not in {"metrics", "stats", "cli", "specs", "registry", "challenge"}, (
                    f"{path}:{line} imports {module}"
                )


def test_the_check_finds_an_upward_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from metricore.metrics.anls import compute_anls\n", encoding="utf-8")
    assert (2, "metricore.metrics.anls") in _imports(bad)
    assert LAYERS[_part("metricore.metrics.anls")] > LAYERS["text"]
