"""The compiled backend of METEOR 1.5: :mod:`.backend_py`'s functions, computed by the C
extension ``_fast`` (``_fast.c``) on arrays laid out here.

The extension is built by ``pip install`` when a C compiler is there (``setup.py``, an
optional extension). Importing this module fails (``ImportError``, with the reason) when
the extension is missing (``ModuleNotFoundError``), was compiled from another ``_fast.c``
than the one beside it (an editable install whose source changed), or exports constants
(beam size, statistics count, longest phrase, module ids, the aligner's and the scorer's
weights, alpha/beta/gamma/delta) other than the Python modules' (:func:`constant_mismatches`):
:mod:`.dispatch` then warns and runs the Python backend.

What depends on one line only comes from the Python modules (word hashes, stems, synsets,
function words of :mod:`.matchers`), except the paraphrase-index walk, which the C code
does for :class:`CompiledLine` and keeps as packed int32 bytes (unpacked only if the Python
path needs them). :func:`score_segments` lays lines and segments out as flat arrays and lets
the C code do, for every hypothesis-reference pair, what :func:`.matchers.candidate_matches`,
:func:`.align.align` and :func:`.score.best_line` do, for lines of any length. The C code
leaves a segment to :func:`.score.best_line` only when it has no reference or holds a
paraphrase span that only an index key collision could make.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Sequence
from itertools import accumulate
from types import ModuleType

import numpy as np

from metricore.metrics.meteor15 import align, matchers, score
from metricore.metrics.meteor15.backend_py import SegmentResult
from metricore.metrics.meteor15.builds import stale_build
from metricore.metrics.meteor15.matchers import Line, word_analysis
from metricore.metrics.meteor15.paraphrase import MAX_PHRASE, load_paraphrases

try:
    # by its full name: importing it from the package while the package initializes would
    # word a missing file as a circular import
    _fast = importlib.import_module("metricore.metrics.meteor15._fast")
except ModuleNotFoundError as exc:
    raise ModuleNotFoundError(
        "the C extension metricore.metrics.meteor15._fast is not built (no C compiler when "
        "metricore was installed)",
        name="metricore.metrics.meteor15._fast",
    ) from exc
except ImportError as exc:  # built for another Python or against other libraries
    raise ModuleNotFoundError(
        f"the C extension metricore.metrics.meteor15._fast does not load ({exc})",
        name="metricore.metrics.meteor15._fast",
    ) from exc

__all__ = ["NAME", "CompiledLine", "constant_mismatches", "line_info", "score_segments"]

NAME = "compiled"

#: the Python modules' values of the constants the C code exports
PYTHON_CONSTANTS: dict[str, object] = {
    "BEAM_SIZE": align.BEAM_SIZE,
    "N_STATS": score.N_STATS,
    "MAX_PHRASE": MAX_PHRASE,
    "MODULES": matchers.MODULES,
    "ALIGN_WEIGHTS": matchers.ALIGN_WEIGHTS,
    "WEIGHTS": score.WEIGHTS,
    "ALPHA": score.ALPHA,
    "BETA": score.BETA,
    "GAMMA": score.GAMMA,
    "DELTA": score.DELTA,
}


def constant_mismatches(module: ModuleType) -> list[str]:
    """The constants whose value in ``module`` differs from the Python modules' (empty when
    the C code decides with the specification's numbers)."""
    return [
        f"{name}: C {getattr(module, name, '<missing>')!r}, Python {value!r}"
        for name, value in PYTHON_CONSTANTS.items()
        if getattr(module, name, None) != value
    ]


def _build_problem(module: ModuleType) -> str | None:
    stale = stale_build(module, "_fast.c", "the compiled extension")
    if stale is not None:
        return stale
    differ = constant_mismatches(module)
    if differ:
        return (
            "meteor 1.5: the compiled extension's constants differ from the Python modules' ("
            + "; ".join(differ)
            + "), so the Python path is used; rebuild it from this version's _fast.c"
        )
    return None


if (_PROBLEM := _build_problem(_fast)) is not None:
    raise ImportError(_PROBLEM, name=__name__)


class CompiledLine(Line):
    """A :class:`.matchers.Line` whose paraphrase-index walk the C code does; its result is
    kept as the C code gives it (``packed``: four int32 byte strings, the (start, words,
    node) triples, the paraphrase ids, each id's position count, the positions) and unpacked
    into the Python form on first use only."""

    __slots__ = ("packed",)

    def __init__(self, words: tuple[str, ...]) -> None:
        super().__init__(words)
        self.packed: tuple[bytes, bytes, bytes, bytes] | None = None

    def walk(self, unknown: set[tuple[str, ...]]) -> bool:
        """:meth:`.matchers.Line.walk` in C (a line that met unknown n-grams is walked again
        whole on the next call)."""
        trie, marker = matchers.walk_state()
        walked = _fast.walk_line(self.words, trie, marker, unknown, MAX_PHRASE)
        if walked is None:
            return False
        self.packed = walked
        self._nodes = None
        return True

    def _unpack(self) -> None:
        if self.packed is None:  # not walked
            self._nodes = ()
            return
        flat, found, counts, positions = (np.frombuffer(b, dtype=np.int32).tolist() for b in self.packed)
        self._nodes = tuple(zip(flat[0::3], flat[1::3], flat[2::3]))
        self._found = tuple(found)
        at, k = [], 0
        for c in counts:
            at.append(tuple(positions[k : k + c]))
            k += c
        self._found_at = tuple(at)

    @property
    def nodes(self) -> tuple[tuple[int, int, int], ...]:
        if self._nodes is None:
            self._unpack()
        return self._nodes  # type: ignore[return-value]

    @property
    def found(self) -> tuple[int, ...]:
        if self._nodes is None:
            self._unpack()
        return self._found

    @property
    def found_at(self) -> tuple[tuple[int, ...], ...]:
        if self._nodes is None:
            self._unpack()
        return self._found_at


def line_info(lines: Sequence[tuple[str, ...]]) -> list[Line]:
    """:func:`.backend_py.line_info`, the walks done in C."""
    return matchers.line_info(lines, CompiledLine)


def _i32(values: list[int]) -> np.ndarray:
    return np.array(values, dtype=np.int32)


def _i64(values: list[int]) -> np.ndarray:
    return np.array(values, dtype=np.int64)


@functools.lru_cache(maxsize=1 << 18)
def _analysis(word: str) -> tuple[int, int, bool, tuple[int, ...]]:
    """A word's hash, stem hash, function flag and sorted synset ids."""
    a = word_analysis(word)
    return a.hash, a.stem_hash, a.function, tuple(sorted(a.synsets))


def _packed(line: Line) -> tuple[bytes, bytes, bytes, bytes]:
    """The walk of a line in the C walk's layout (a line the Python backend made, packed)."""
    if isinstance(line, CompiledLine) and line.packed is not None:
        return line.packed
    return (
        _i32([x for t in line.nodes for x in t]).tobytes(),
        _i32(list(line.found)).tobytes(),
        _i32([len(at) for at in line.found_at]).tobytes(),
        _i32([b for at in line.found_at for b in at]).tobytes(),
    )


def score_segments(segments: Sequence[tuple[Line, Sequence[Line]]]) -> list[SegmentResult]:
    """:func:`.backend_py.score_segments`, the per-pair work done in C (a segment without
    references, or one the C code leaves to the Python path, by :func:`.score.best_line`)."""
    return [
        done if done is not None else score.best_line(hyp, refs)
        for (hyp, refs), done in zip(segments, _c_segments(segments))
    ]


def _c_segments(segments: Sequence[tuple[Line, Sequence[Line]]]) -> list[SegmentResult | None]:
    """What the C code gives each segment; ``None`` for a segment it leaves to the Python
    path (no reference, a span only an index key collision could make, a line of more than
    ``_fast.MAX_LINE_WORDS`` words)."""
    index: dict[int, int] = {}
    lines: list[Line] = []
    seg_lines: list[int] = []
    seg_off = [0]
    for hyp, refs in segments:
        for line in (hyp, *refs):
            k = index.get(id(line))
            if k is None:
                k = index[id(line)] = len(lines)
                lines.append(line)
            seg_lines.append(k)
        seg_off.append(len(seg_lines))

    # comprehensions over flat data: this layout is the Python part of the compiled path
    vocabulary = list(set().union(*[line.words for line in lines]))
    words = dict(zip(vocabulary, range(len(vocabulary))))
    analysed = [_analysis(w) for w in vocabulary]
    syn_ids = [x for a in analysed for x in a[3]]
    syn_off = [0, *accumulate(len(a[3]) for a in analysed)]
    line_words = [words[w] for line in lines for w in line.words]
    line_off = [0, *accumulate(len(line.words) for line in lines)]
    packs = [_packed(line) for line in lines]
    node_flat = np.frombuffer(b"".join([p[0] for p in packs]), dtype=np.int32)
    node_off = _i64([0, *accumulate(len(p[0]) // 12 for p in packs)])
    found = np.frombuffer(b"".join([p[1] for p in packs]), dtype=np.int32)
    found_off = _i64([0, *accumulate(len(p[1]) // 4 for p in packs)])
    counts = np.frombuffer(b"".join([p[2] for p in packs]), dtype=np.int32)
    fpos = np.frombuffer(b"".join([p[3] for p in packs]), dtype=np.int32)
    fpos_off = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=fpos_off[1:])

    # (trie node, paraphrase id) -> the ranks at which the node emits it, for the nodes the
    # lines reach and the paraphrases they hold (a few thousand entries for 5,000 images)
    table = load_paraphrases()
    held = frozenset(np.unique(found).tolist())
    hits: list[tuple[int, tuple[int, ...]]] = []
    for node in np.unique(node_flat[2::3]).tolist():
        pids, ranks = table.emitted(node)
        hits.extend(((node << 32) | pid, ranks[pid]) for pid in pids.intersection(held))
    hits.sort()
    hit_ranks: list[int] = []
    hit_off = [0]
    for _, node_ranks in hits:
        hit_ranks.extend(node_ranks)
        hit_off.append(len(hit_ranks))

    n = len(segments)
    out_stats = np.zeros((n, score.N_STATS), dtype=np.float64)
    out_best = np.zeros(n, dtype=np.int32)
    out_score = np.zeros(n, dtype=np.float64)
    _fast.score_segments(
        _i32([a[0] for a in analysed]),
        _i32([a[1] for a in analysed]),
        np.array([a[2] for a in analysed], dtype=np.uint8),
        _i64(syn_off),
        _i64(syn_ids),
        _i64(line_off),
        _i32(line_words),
        node_off,
        node_flat,
        found_off,
        found,
        fpos_off,
        fpos,
        np.array([k for k, _ in hits], dtype=np.int64),
        _i64(hit_off),
        _i32(hit_ranks),
        np.ascontiguousarray(table.phrase_words, dtype=np.uint8),
        _i64(seg_off),
        _i32(seg_lines),
        out_stats,
        out_best,
        out_score,
    )
    return [
        None if best < 0 else (best, tuple(st), s)
        for best, st, s in zip(out_best.tolist(), out_stats.tolist(), out_score.tolist())
    ]
