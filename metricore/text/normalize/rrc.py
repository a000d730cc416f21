"""Robust Reading Competition answer cleaning (DocVQA, ST-VQA, DUDE, ANLS*), and its batched
form for whole answer columns.

The rule, as the RRC evaluation scripts write it: ``" ".join(s.strip().lower().split())``:
case-insensitive, whitespace runs collapsed to one space, nothing else touched.
:func:`rrc_normalize_batch` computes the same for a column several times faster (a property
test, ``tests/text/test_normalize_batch.py``, pins the equality).
"""

from __future__ import annotations

import sys

import numpy as np


def rrc_normalize(text: str) -> str:
    """``" ".join(text.strip().lower().split())`` as the RRC evaluation scripts write it.

    ``strip()`` is implied by ``split()`` (both use ``str.isspace``), so it is not repeated.
    """
    return " ".join(text.lower().split())


def rrc_normalize_many(texts: list[str]) -> list[str]:
    """:func:`rrc_normalize` over a list: this is the hot loop of ANLS."""
    if len(texts) >= _BATCH_MIN:
        return rrc_normalize_batch(texts)[0]
    return [" ".join(t.lower().split()) for t in texts]


#: below this many strings the per-string loop is as fast as the batched path
_BATCH_MIN = 256
_SEP = "\x00"


#: strings per block of :func:`rrc_normalize_batch`. Whole-column temporaries (a few MB
#: each) were handed back to the OS after every call and faulted in again on the next
#: (~9,000 page faults, 10-15% of an ANLS run on 100,000 questions); blocks of this size
#: stay in malloc's reused memory and in cache (measured: 0 faults, ~15% faster).
#: :func:`rrc_normalize_batch` reads it from the package, ``metricore.text.normalize._BLOCK``:
#: that is the name to set (tests shrink it to put block edges inside small columns).
_BLOCK = 16384


def rrc_normalize_batch(texts: list[str]) -> tuple[list[str], np.ndarray]:
    """:func:`rrc_normalize` of every text, and ``len(text.upper())`` of every raw text.

    Equal to ``[rrc_normalize(t) for t in texts]`` and ``[len(t.upper()) for t in texts]``
    (a property test pins it), several times faster on large columns. Why: the per-string
    loop pays three method calls and a join per answer, while most answers are plain ASCII
    with single spaces and need only lowercasing. So the column is joined once with NUL
    separators and lowercased as bytes (``bytes.lower`` maps A-Z only, which is the whole of
    ``str.lower`` on ASCII), and NumPy finds the few answers that need more (any byte outside
    printable ASCII, i.e. control characters, whitespace other than the space, or non-ASCII
    text; a leading, trailing or doubled space); only those go through :func:`rrc_normalize`
    one by one (batching them too was tried: ``re.sub`` over their joined text is slower
    than the per-string calls). ASCII lengths are byte lengths; ``upper`` never changes an
    ASCII length.

    The column is worked through in blocks of :data:`_BLOCK` texts. A text containing NUL,
    or a lone surrogate, sends its block down the plain loop.
    ``TypeError`` if an item is not a ``str``.
    """
    block = sys.modules[__package__]._BLOCK  # see _BLOCK: the package's value is the one in use
    if len(texts) <= block:
        return _normalize_block(texts)
    parts: list[str] = []
    lengths = []
    for start in range(0, len(texts), block):
        block_parts, block_lengths = _normalize_block(texts[start : start + block])
        parts.extend(block_parts)
        lengths.append(block_lengths)
    return parts, np.concatenate(lengths)


def _normalize_block(texts: list[str]) -> tuple[list[str], np.ndarray]:
    """:func:`rrc_normalize_batch` of one block."""
    n = len(texts)
    if n < _BATCH_MIN:
        return _normalize_loop(texts)
    try:
        data = _SEP.join(texts).encode("utf-8")
    except UnicodeEncodeError:
        return _normalize_loop(texts)
    b = np.frombuffer(data, dtype=np.uint8)
    seps = np.flatnonzero(b == 0)
    if len(seps) != n - 1:  # some text holds a NUL itself
        return _normalize_loop(texts)
    bounds = np.empty(n + 1, dtype=np.int64)
    bounds[0], bounds[1:-1], bounds[-1] = -1, seps, len(b)
    starts, ends = bounds[:-1] + 1, bounds[1:]
    lengths = ends - starts
    # bytes < 32 or >= 128 in one comparison (uint8 wraps), separators excepted
    odd = (b - np.uint8(32)) >= 96
    odd[seps] = False
    space = b == 32
    odd[1:] |= space[:-1] & space[1:]
    suspect = np.zeros(n, dtype=bool)
    suspect[np.searchsorted(seps, np.flatnonzero(odd))] = True
    last = len(b) - 1
    suspect |= (lengths > 0) & (space[np.minimum(starts, last)] | space[np.maximum(ends - 1, 0)])
    parts = data.lower().decode("utf-8").split(_SEP)
    for i in np.flatnonzero(suspect).tolist():
        t = texts[i]
        parts[i] = " ".join(t.lower().split())
        lengths[i] = len(t) if t.isascii() else len(t.upper())
    return parts, lengths


def _normalize_loop(texts: list[str]) -> tuple[list[str], np.ndarray]:
    pairs = [(" ".join(t.lower().split()), len(t) if t.isascii() else len(t.upper())) for t in texts]
    if not pairs:
        return [], np.zeros(0, dtype=np.int64)
    norm, lengths = zip(*pairs)
    return list(norm), np.array(lengths, dtype=np.int64)
