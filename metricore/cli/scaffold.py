"""``metricore new-metric NAME``: a working placeholder metric, as new files only.

Run from a checkout of the project, it writes (and refuses to overwrite anything):

==================================  =======================================================
``metricore/metrics/NAME.py``       the core: ``compute_NAME`` (exact match, so that it can be
                                    tried at once) and its result type
``metricore/specs/NAME.py``         its spec (the registry discovers it by its file name)
``metrics/NAME/``                   the ``evaluate`` script, the metric card, requirements
``spaces/NAME/``                    the Space (built from the spec), its card, requirements
``tests/metrics/test_NAME.py``      property and bad-input tests to grow into parity tests
==================================  =======================================================

The new metric is then in the CLI (``metricore score --metric NAME``), ``evaluate.load``,
the index Space, the bundles, the demo and every test that iterates the registry, with no
edit to an existing file (the README's metric table aside). ``docs/adding-a-metric.md``
walks through replacing the placeholder.
"""

from __future__ import annotations

import argparse
import keyword
import re
import sys
from pathlib import Path
from typing import Any

from metricore.core.files import write_atomic

__all__ = ["add_parser", "new_metric", "run"]

_NAME = re.compile(r"^[a-z][a-z0-9_]{1,39}$")

_CORE = '''"""{title}: a placeholder metric written by ``metricore new-metric {name}``.

Replace this docstring with the metric's rules (docs/adding-a-metric.md): the formula, every
degenerate case, and the reference implementation each config is pinned to.

Placeholder rule: an item scores 1.0 when the prediction equals one of its references
(after lower-casing both with ``lowercase=True``), else 0.0; ``{name}`` is the mean over items.
An empty prediction list raises ``ValueError`` (the mean of nothing is undefined).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from metricore.core.result import Headline, MetricResult
from metricore.core.signature import build_signature
from metricore.core.validation import check_bool, check_choice, check_pairs, check_strings, gold_column

__all__ = ["{cls}Result", "VARIANTS", "compute_{name}"]

_METRIC = "{name}"
#: config name -> the reference implementation it is pinned to
VARIANTS = {{"default": "placeholder: exact string match (name the reference implementation here)"}}


@dataclass(frozen=True)
class {cls}Result(MetricResult):
    """The mean score, the per-item scores and the reference each item matched."""

    {name}: float
    scores: list[float]
    closest: list[str]
    variant: str
    signature: str = field(repr=False)
    predictions: list[str] = field(default_factory=list, repr=False, compare=False)

    METRIC = _METRIC
    HEADLINE = (Headline("{name}", higher_is_better=True, items="score", mean=True),)

    def item_closest(self) -> list[str]:
        return self.closest


def compute_{name}(
    predictions: Sequence[str],
    references: Sequence[Any],
    *,
    variant: str = "default",
    lowercase: bool = False,
) -> {cls}Result:
    """Score predictions against their references (a str or a list of alternatives each).

    >>> compute_{name}(["a cat", "a dog"], [["a cat", "the cat"], "a bird"]).{name}
    0.5
    """
    check_choice(variant, VARIANTS, _METRIC, "variant")
    lowercase = check_bool(lowercase, _METRIC, "lowercase")
    preds, refs = check_pairs(predictions, references, _METRIC)
    preds = check_strings(preds, _METRIC, "predictions")
    flat, counts = gold_column(refs, _METRIC)
    fold = str.lower if lowercase else str
    scores: list[float] = []
    closest: list[str] = []
    start = 0
    for i, pred in enumerate(preds):
        n = 1 if counts is None else int(counts[i])
        golds = flat[start : start + n]
        start += n
        hit = next((g for g in golds if fold(g) == fold(pred)), None)
        scores.append(1.0 if hit is not None else 0.0)
        closest.append(golds[0] if hit is None else hit)
    return {cls}Result(
        {name}=sum(scores) / len(scores),
        scores=scores,
        closest=closest,
        variant=variant,
        signature=build_signature(_METRIC, variant, {{"lowercase": lowercase}}, {{"lowercase": False}}),
        predictions=preds,
    )
'''

_SPEC = '''"""{title}: :mod:`metricore.metrics.{name}` (written by ``metricore new-metric {name}``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from metricore.core.spec import Config, Example, MetricSpec, Option, TaskUse
from metricore.metrics.{name} import VARIANTS, {cls}Result, compute_{name}
from metricore.specs._cost import token_cost
from metricore.stats.significance import Statistic, mean_statistic

_LOWERCASE = Option("lowercase", "bool", False, "compare lower-cased strings", label="lowercase")


def _compute(
    config: str,
    predictions: list[Any],
    references: list[Any],
    options: Mapping[str, Any],
) -> {cls}Result:
    return compute_{name}(predictions, references, variant=config, **options)


def _statistics(r: {cls}Result) -> dict[str, Statistic]:
    return {{"{name}": mean_statistic(r.scores, name="{name}")}}


def _explain(
    config: str,
    predictions: Sequence[Any],
    references: Sequence[Any],
    options: Mapping[str, Any],
    r: {cls}Result,
) -> list[str]:
    return ["equals a reference" if s else "equals no reference" for s in r.scores]


def _cost(
    config: str,
    predictions: Sequence[Any],
    references: Sequence[Any],
    options: Mapping[str, Any],
) -> float:
    return token_cost(predictions, references, per_char=0.05)


SPEC = MetricSpec(
    name="{name}",
    label="{name}",
    title="{title}",
    summary="A placeholder metric: 1 when the prediction equals one of its references, else 0, averaged.",
    configs=tuple(Config(name, reference, (_LOWERCASE,)) for name, reference in VARIANTS.items()),
    compute=_compute,
    result_types=({cls}Result,),
    cost=_cost,
    statistics=_statistics,
    explain=_explain,
    examples=(
        Example("Exact matches", ["a cat", "a dog", "A bird"], [["a cat", "the cat"], "a bird", ["a bird"]]),
        Example(
            "Case folded",
            ["a cat", "A bird"],
            [["a cat", "the cat"], ["a bird"]],
            options={{"lowercase": True}},
        ),
    ),
    task=TaskUse(tuple(VARIANTS), ("{name}",)),
)
'''

_ADAPTER = '''"""{title} as a Hugging Face `evaluate` metric (written by `metricore new-metric {name}`).

A thin adapter over `metricore.metrics.{name}.compute_{name}`; its configs, options and
computation come from the metric's spec. See README.md beside this file.
"""

import evaluate

from metricore_hf import evaluate_module as hf

_DESCRIPTION = """\\
A placeholder metric: 1 when the prediction equals one of its references, else 0, averaged.
"""

_CITATION = ""

_KWARGS_DESCRIPTION = """
Args:
    predictions: one string per item.
    references: per item, a reference string or a list of acceptable ones.
    lowercase: compare lower-cased strings (default False).
Returns:
    {name}: the mean score in [0, 1].
    scores: the score of each item.
    signature: reproducibility signature.
Examples:
    >>> import metricore_hf
    >>> metric = metricore_hf.load("{name}")
    >>> metric.compute(predictions=["a cat", "a dog"], references=[["a cat"], ["a bird"]])["{name}"]
    0.5
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class {cls}(hf.CoreMetric):
    METRIC = "{name}"

    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    KWARGS_DESCRIPTION = _KWARGS_DESCRIPTION
'''

#: the Hub card header of the metric card and the Space card (``{summary}`` line differs)
_HEADER = """---
title: {title}
emoji: 📏
colorFrom: blue
colorTo: green
sdk: gradio
sdk_version: {gradio}
app_file: app.py
pinned: false
tags:
- evaluate
- metric
{summary}
---
"""

_CARD = """{header}
# Metric Card for {title}

## Metric description

A placeholder: an item scores 1 when the prediction equals one of its references (lower-cased
with `lowercase=True`), else 0; `{name}` is the mean over items. Replace this card with the
metric's rules, its degenerate cases, the reference implementation each config is pinned to
and the divergences between references (docs/adding-a-metric.md).

## How to use

```python
>>> import metricore_hf
>>> metric = metricore_hf.load("{name}")
>>> r = metric.compute(predictions=["a cat", "A dog"], references=[["a cat", "the cat"], ["a dog"]])
>>> r["{name}"], r["scores"]
(0.5, [1.0, 0.0])
>>> metric.compute(predictions=["A dog"], references=[["a dog"]], lowercase=True)["{name}"]
1.0

```

## Inputs

- `predictions`: one string per item.
- `references`: per item, a string or a list of acceptable strings.
- `lowercase` (default `False`): compare lower-cased strings.

## Outputs

`{name}` (the mean, in [0, 1]), `scores` (one per item) and `signature`.

## Limitations

A placeholder; it is pinned to no reference implementation yet.
"""

_SPACE_APP = '''"""Hugging Face Space for {name}; built from its spec by metricore_hf.space."""

from metricore_hf.space import launch, metric_app

demo = metric_app("{name}", __file__)

if __name__ == "__main__":
    launch(demo)
'''

_SPACE_CARD = """{header}
# {title}

Interactive scorer for {title}, built from its spec by `metricore_hf.space`.
"""

_TESTS = '''"""{title}: properties and bad input (written by ``metricore new-metric {name}``).

Add parity tests against the reference implementation the metric is pinned to (see
docs/adding-a-metric.md and the other metrics' tests/metrics/test_*_parity.py).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from metricore.metrics.{name} import compute_{name}

texts = st.text(max_size=20)


@given(st.lists(st.tuples(texts, st.lists(texts, min_size=1, max_size=3)), min_size=1, max_size=20))
def test_scores_are_in_range_and_averaged(rows):
    preds = [p for p, _ in rows]
    refs = [r for _, r in rows]
    result = compute_{name}(preds, refs)
    assert all(s in (0.0, 1.0) for s in result.scores)
    assert result.{name} == pytest.approx(sum(result.scores) / len(rows))


@given(st.lists(texts, min_size=1, max_size=20))
def test_identical_items_score_one(preds):
    assert compute_{name}(preds, preds).{name} == 1.0


def test_bad_input_names_the_row():
    with pytest.raises(ValueError, match="empty"):
        compute_{name}([], [])
    with pytest.raises(TypeError, match=r"predictions\\[1\\]"):
        compute_{name}(["a", 3], ["a", "b"])
    with pytest.raises(ValueError, match="1 predictions but 2 references"):
        compute_{name}(["a"], ["a", "b"])
'''

_REQUIREMENTS = "metricore\nevaluate>=0.4.6\ndatasets\n"
_SPACE_REQUIREMENTS = "metricore\ngradio=={gradio}\npandas\n"


def _gradio_version(root: Path) -> str:
    """The Gradio the project pins (its requirements), for the cards' ``sdk_version``."""
    for line in (root / "requirements-dev.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("gradio=="):
            return line.split("==", 1)[1].split()[0]
    raise ValueError("requirements-dev.txt pins no gradio version")


def new_metric(name: str, root: Path) -> list[Path]:
    """Write the files of a new placeholder metric ``name`` under the checkout ``root``;
    ``ValueError`` for a bad name, a checkout it cannot find, or any file that exists."""
    if not _NAME.match(name) or keyword.iskeyword(name):
        raise ValueError(
            f"{name!r} is not a metric name: lower-case letters, digits and '_', starting "
            "with a letter, 2 to 40 characters, not a Python keyword"
        )
    if not (root / "metricore" / "specs").is_dir() or not (root / "metrics").is_dir():
        raise ValueError(f"{root} is not a checkout of metricore (run it from the repository root)")
    words = name.replace("_", " ")
    values: dict[str, Any] = {
        "name": name,
        "cls": "".join(part.capitalize() for part in name.split("_")),
        "title": words[:1].upper() + words[1:],
        "gradio": _gradio_version(root),
    }
    card_header = f"description: >-\n  {values['title']}: a placeholder metric (exact match) written by metricore new-metric."
    space_header = f"short_description: {values['title']} (placeholder)"
    texts = {
        "card": _CARD.format(header=_HEADER.format(summary=card_header, **values), **values),
        "space_card": _SPACE_CARD.format(header=_HEADER.format(summary=space_header, **values), **values),
    }
    files = {
        root / "metricore" / "metrics" / f"{name}.py": _CORE.format(**values),
        root / "metricore" / "specs" / f"{name}.py": _SPEC.format(**values),
        root / "metrics" / name / f"{name}.py": _ADAPTER.format(**values),
        root / "metrics" / name / "README.md": texts["card"],
        root / "metrics" / name / "requirements.txt": _REQUIREMENTS,
        root / "spaces" / name / "app.py": _SPACE_APP.format(**values),
        root / "spaces" / name / "README.md": texts["space_card"],
        root / "spaces" / name / "requirements.txt": _SPACE_REQUIREMENTS.format(**values),
        root / "tests" / "metrics" / f"test_{name}.py": _TESTS.format(**values),
    }
    taken = [p for p in files if p.exists()]
    if taken or (root / "metrics" / name).exists() or (root / "spaces" / name).exists():
        shown = ", ".join(str(p.relative_to(root)) for p in taken) or f"metrics/{name} or spaces/{name}"
        raise ValueError(f"{name!r} exists already ({shown}); nothing was written")
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, [text])
    return list(files)


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "new-metric",
        help="write a working placeholder metric as new files (run from the repository root)",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument("name", help="the metric's name (folder, module, config names, Space)")
    p.add_argument("--root", type=Path, default=Path.cwd(), help="the checkout (default: this directory)")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    try:
        written = new_metric(args.name, args.root.resolve())
    except ValueError as err:
        print(f"metricore new-metric: error: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"metricore new-metric: error: {err}", file=sys.stderr)
        return 4
    root = args.root.resolve()
    for path in written:
        print(path.relative_to(root))
    print(
        f"\nnext: `metricore score --metric {args.name} ...`, `python -m pytest tests -k {args.name}`, "
        "then docs/adding-a-metric.md"
    )
    return 0
