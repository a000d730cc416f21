"""Input checks and tokenization shared by the COCO caption scorers (BLEU, ROUGE-L, the table).

The COCO caption toolkit (``pycocoevalcap`` 1.2 ``COCOEvalCap.evaluate``) tokenizes the
references of every image in one ``PTBTokenizer`` call and the candidates in a second one, then
hands the same tokenized strings to every scorer. :func:`tokenized_captions` does the same
with :func:`metricore.text.ptb_tokenize.coco_tokenize` (pure Python, no Java), so a table
computed from one call shares one tokenization.

Because all captions of a call are one text, a caption's tokens can depend on the captions
that follow it ("``... in the U.S.``" then "``The ...``"; "``:D``" at the very end of the text).
A stream of batches (:mod:`metricore.core.stream`) therefore holds back the last rows of each
batch until the next one is read (:func:`rows_to_hold`), so that every caption is tokenized
with the same text after it as in one call over all rows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from metricore.core.validation import (
    check_bool,
    check_pairs,
    check_strings,
    paired_columns,
    string_alternatives_column,
)
from metricore.text.ptb_tokenize import coco_tokenize

__all__ = ["CaptionTexts", "check_caption_inputs", "rows_to_hold", "tokenized_captions"]


def check_caption_inputs(
    predictions: Any, references: Any, metric: str, start: int = 0
) -> tuple[list[str], list[list[str]]]:
    """New lists: one candidate str per image, and per image a non-empty list of reference
    strs (a bare str is one reference). Errors name ``metric``, the argument and the row
    (``start``: the index of the first row, for streamed batches, which may be empty)."""
    preds, refs = paired_columns(predictions, references, metric)
    cands = check_strings(preds, metric, "predictions", start)
    golds = string_alternatives_column(refs, metric, start=start, allow_empty=True)
    for i, r in enumerate(golds):
        if not r:
            raise ValueError(
                f"{metric}: `references[{start + i}]` has no reference caption; every image needs at "
                "least one (pycocoevalcap asserts it)"
            )
    return cands, golds


class CaptionTexts:
    """Checked, optionally tokenized captions: ``candidates`` (one per image), ``references``
    (all references in image order), ``ref_counts`` (references per image), ``raw`` (the
    candidates as given, for per-item records)."""

    __slots__ = ("candidates", "references", "ref_counts", "raw")

    def __init__(self, candidates: list[str], references: list[str], ref_counts: np.ndarray, raw: list[str]):
        self.candidates = candidates
        self.references = references
        self.ref_counts = ref_counts
        self.raw = raw

    @property
    def num_images(self) -> int:
        return len(self.candidates)

    def grouped_references(self) -> list[list[str]]:
        """The references split back per image."""
        out: list[list[str]] = []
        at = 0
        for c in self.ref_counts.tolist():
            out.append(self.references[at : at + c])
            at += c
        return out


def tokenized_captions(predictions: Any, references: Any, metric: str, tokenize: Any) -> CaptionTexts:
    """Check the inputs, then PTB-tokenize them as ``COCOEvalCap`` does (references in one
    call, candidates in another) or, with ``tokenize=False``, keep them as given."""
    tokenize = check_bool(tokenize, metric, "tokenize")
    preds, refs = check_pairs(predictions, references, metric)
    cands, golds = check_caption_inputs(preds, refs, metric)
    counts = np.fromiter(map(len, golds), np.int64, len(golds))
    flat = [r for rs in golds for r in rs]
    if tokenize:
        return CaptionTexts(
            coco_tokenize(cands, where="predictions"), coco_tokenize(flat, where="references"), counts, cands
        )
    return CaptionTexts(cands, flat, counts, cands)


# --------------------------------------------------------------------------------------------
# Where a stream of captions can be cut (rows_to_hold)
# --------------------------------------------------------------------------------------------
# The PTB scanner (metricore.text.ptb_tokenize, the rules of CoreNLP 3.4.1 PTBLexer.flex) reads
# the captions of a call as one text, one per line. Its scan from a position depends only on
# the text from there on, and a line break is a token of its own, so line k starts afresh
# unless a token spans the break before it. Lines before k read the text after them in two
# ways only:
#
# * trailing contexts: after a word, a line break, any blank lines, then one word, an SGML
#   tag or a character of the next non-blank line, and the one character after that (which
#   may be the line break that ends it); and whether the text ends there at all;
# * an SGML tag (``<a href="...">``), whose quoted attribute values may hold line breaks:
#   the one token that spans lines.
#
# So lines 0..k-1 of a call are tokenized as in any longer text when no SGML tag may be open
# at the end of line k-1 and the first non-blank line j >= k is complete in the call, is
# followed by another line, and leaves no tag open. The test is conservative: a possible tag
# counts as open even where the scanner would not start a tag.

_NAME = r"[A-Za-z][A-Za-z0-9_:.\-]*"
_ATTRS = rf"(?:[ ]+(?:{_NAME}[ ]*=[ ]*(?:'[^']*'|\"[^\"]*\")|{_NAME}))*"
_OPEN_VALUE = rf"[ ]+{_NAME}[ ]*=[ ]*(?:'(?P<single>[^']*)|\"(?P<double>[^\"]*))\Z"
#: a tag whose last attribute value is still open at the end of the line
_TAG_LEFT_OPEN = re.compile(rf"<{_NAME}{_ATTRS}{_OPEN_VALUE}")
#: after the quote that closes a value: more attributes, the last one open again
_STILL_OPEN = re.compile(rf"{_ATTRS}{_OPEN_VALUE}")
#: what the tokenizer reads as a space inside a caption (metricore.text.ptb_tokenize._prepare)
_BREAKS = re.compile("[\n\r\x0b\x0c\u2028\u2029]")


def _quotes_open_after(line: str, open_before: frozenset[str]) -> frozenset[str]:
    """The quote characters that may hold an SGML attribute value open at the end of
    ``line``, given those open before it."""
    if not open_before and "<" not in line:
        return open_before
    # the scanner's line: line breaks inside a caption are read as spaces
    line = _BREAKS.sub(" ", line)
    out: set[str] = set()
    for quote in open_before:
        end = line.find(quote)
        if end < 0:
            out.add(quote)
            continue
        m = _STILL_OPEN.match(line, end + 1)
        if m is not None:
            out.add("'" if m.group("single") is not None else '"')
    if "<" in line:
        # every "<" may start a tag (one inside another's value too)
        for at in (i for i, ch in enumerate(line) if ch == "<"):
            m = _TAG_LEFT_OPEN.match(line, at)
            if m is not None:
                out.add("'" if m.group("single") is not None else '"')
    return frozenset(out)


def _cut_lines(lines: Sequence[str]) -> np.ndarray:
    """``out[k]``: whether lines ``0..k-1`` of this call are tokenized as in any longer text
    (``k = 0 .. len(lines)``; the comment above)."""
    m = len(lines)
    out = np.zeros(m + 1, bool)
    out[0] = True
    if m < 2:
        return out
    closed = np.ones(m, bool)  # no tag open at the end of line i
    if any("<" in line for line in lines):
        state: frozenset[str] = frozenset()
        for i, line in enumerate(lines):
            state = _quotes_open_after(line, state)
            closed[i] = not state
    # first non-blank line at or after each line (m: none)
    next_text = m
    for k in range(m - 1, 0, -1):
        if lines[k].strip():
            next_text = k
        out[k] = bool(closed[k - 1]) and next_text <= m - 2 and bool(closed[next_text])
    return out


def rows_to_hold(predictions: Sequence[Any], references: Sequence[Any]) -> int:
    """How many of the last rows of a batch must wait for the next batch before their PTB
    tokens are known: the candidates are one text and the references another (as
    ``COCOEvalCap`` tokenizes them), and the rows are cut where both texts can be cut
    (comment above). The rows were checked (:func:`check_caption_inputs`)."""
    rows = len(predictions)
    golds = [[r] if isinstance(r, str) else list(r) for r in references]
    ref_lines = [r for rs in golds for r in rs]
    at_candidate = _cut_lines(list(predictions))
    at_reference = _cut_lines(ref_lines)
    ends = np.zeros(rows + 1, np.int64)
    np.cumsum([len(rs) for rs in golds], out=ends[1:])
    both = at_candidate & at_reference[ends]
    return rows - int(np.flatnonzero(both)[-1])
