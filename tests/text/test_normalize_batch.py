"""The batched RRC normalizer equals the per-string definition (it is a pure speed path)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metricore.text.normalize import _BATCH_MIN, rrc_normalize, rrc_normalize_batch, rrc_normalize_many

# Characters that stress each branch: ASCII case, every str.isspace class (ASCII, the
# \x1c-\x1f separators, NEL, ideographic space), length-changing upper() (ß, ﬁ), final sigma,
# İ (lower() lengthens it), NUL (the batch separator) and a lone surrogate (unencodable).
_PIECES = list("aZ Σς ßﬁ\t\n\x0b\x1c\x1f\x85\u3000éİ\x00") + ["  ", "Ab", "X", "\ud800"]
_TEXT = st.lists(st.sampled_from(_PIECES), max_size=8).map("".join) | st.text(max_size=12)


def _expected(texts: list[str]) -> tuple[list[str], list[int]]:
    return [rrc_normalize(t) for t in texts], [len(t.upper()) for t in texts]


@settings(max_examples=300, deadline=None)
@given(st.lists(_TEXT, min_size=_BATCH_MIN, max_size=_BATCH_MIN + 40))
def test_batch_equals_per_string_definition(texts):
    norm, lengths = rrc_normalize_batch(texts)
    assert (norm, lengths.tolist()) == _expected(texts)
    assert rrc_normalize_many(texts) == norm


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["Coca Cola", " x ", "a  b", "", "ÀB", "ok"]), min_size=_BATCH_MIN, max_size=300)
)
def test_batch_on_mostly_plain_ascii(texts):
    norm, lengths = rrc_normalize_batch(texts)
    assert (norm, lengths.tolist()) == _expected(texts)


def test_small_and_empty_columns_use_the_loop():
    assert rrc_normalize_batch([])[0] == []
    assert rrc_normalize_batch([" A  b "])[0] == ["a b"]
    assert rrc_normalize_batch([""] * _BATCH_MIN)[0] == [""] * _BATCH_MIN


def test_non_str_item_raises_type_error():
    with pytest.raises(TypeError):
        rrc_normalize_batch(["a"] * _BATCH_MIN + [3])


_NO_NUL_TEXT = st.text(
    alphabet=st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=10
) | st.lists(st.sampled_from([p for p in _PIECES if p not in ("\x00", "\ud800")]), max_size=8).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(_NO_NUL_TEXT, min_size=_BATCH_MIN, max_size=_BATCH_MIN + 40))
def test_batch_path_on_any_unicode_without_nul(texts):
    # no NUL and no lone surrogate: every column takes the batched path, suspects included
    norm, lengths = rrc_normalize_batch(texts)
    assert (norm, lengths.tolist()) == _expected(texts)


def test_blocks_join_up(monkeypatch):
    # columns longer than one block: results line up across block edges, and a NUL or a
    # lone surrogate only sends its own block down the per-string loop
    from metricore.text import normalize

    monkeypatch.setattr(normalize, "_BLOCK", _BATCH_MIN + 7)
    texts = [f" Row  {i} ÄB\t" if i % 5 else f"row{i}" for i in range(5 * (_BATCH_MIN + 7) + 3)]
    texts[10] = "has\x00nul"
    texts[3 * (_BATCH_MIN + 7) + 1] = "lone \ud800"
    norm, lengths = rrc_normalize_batch(texts)
    assert (norm, lengths.tolist()) == _expected(texts)
