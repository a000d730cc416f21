"""METEOR alignment as ``nltk.translate.meteor_score`` 3.10 computes it: per pair, and
batched over a whole corpus.

NLTK aligns a (hypothesis, reference) pair of lowercased token lists in three stages, each
over the words the previous stages left unmatched, walking the hypothesis from its end and
giving each word the **highest** still-free reference position that qualifies: (1) equal
words, (2) equal Porter stems, (3) a reference stem among the WordNet synonyms of the
hypothesis stem. ``chunks`` counts runs of matches adjacent in both sentences. The functions
here return NLTK's ``(matches, chunks)`` and score, operation for operation (property-tested
against a literal walk, ``tests/oracles/meteor_walk.py``, and against NLTK itself).

Why it is fast:

* Words with different stems never compete in stages 1-2, and within one stem the walk pairs
  the k-th last occurrence in the hypothesis with the k-th last one in the reference. When
  in both sentences each stem stands for a single word (``uniform``: the usual case), both
  stages together pair equal (stem, rank from the end) keys: one lookup per reference word.
  Otherwise the exact stage is that lookup on (word, rank) keys and the stem stage runs on
  the leftovers.
* The synonym stage only runs when a leftover reference stem is a synonym of some
  hypothesis stem (the union of those synonyms, without each stem itself: after the stem
  stage a free reference stem never equals a free hypothesis stem).
* :func:`score_batch` runs the three stages, the chunk count and the score for every pair
  of a call at once with NumPy, on integer ids for words and stems: one stable sort by
  (item, stem) ranks each token among the equal stems of its sentence and pairs reference
  tokens with hypothesis tokens (pairs sharing a non-uniform stem redo stages 1-2 on their
  own copy of the hypothesis, :func:`_general_stages`); the synonym stage settles one
  hypothesis word per pair and round (:func:`_synonym_stage_batch`). Powers
  ``(chunks/m)**beta`` are computed by Python's ``**`` (NumPy's SIMD ``power`` may differ
  in the last bit); the rest of the formula is IEEE arithmetic in NLTK's order, so the
  scores are bit-identical. Per pair, :func:`_align_fast` (for ``explain`` and the
  ``fbc2_vqa`` variant) walks the same stages with dictionaries.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain, compress, repeat
from operator import sub
from typing import Any

import numpy as np

__all__ = ["score_batch"]

SynGet = Callable[[str], frozenset[str]]

# Stands for "unmatched" in the reference-to-hypothesis map: below -1, so that no difference
# of two entries is 1 unless both are matches (see the chunk count).
_FREE = -10
_FREES = repeat(_FREE)


def _rank_keys(items: list[Any]) -> list[Any]:
    """Each item keyed by its occurrence rank counted from the end of the sentence: the item
    itself for its last occurrence, ``(item, k)`` for the k-th one before."""
    seen: dict[Any, int] = {}
    keys: list[Any] = list(items)
    for k in range(len(items) - 1, -1, -1):
        w = items[k]
        c = seen.get(w, 0)
        seen[w] = c + 1
        if c:
            keys[k] = (w, c)
    return keys


class _Prepared:
    """One tokenized sentence: lowercased words, their stems and its alignment keys.

    ``uniform``: words with equal stems are equal words (each stem stands for one word).
    Then ``keys`` are the stems keyed by rank (:func:`_rank_keys`), else the words. For a
    hypothesis, ``pos`` maps keys to positions and ``syn_union`` holds every word that some
    stem's synonyms (other than the stem itself) contain; both are built on first use.
    """

    __slots__ = ("words", "stems", "keys", "uniform", "_pos", "syn_union")

    def __init__(self, words: list[str], stems: list[str]) -> None:
        self.words = words
        self.stems = stems
        distinct = len(set(stems))
        if distinct == len(stems):
            self.keys: list[Any] = stems
            self.uniform = True
        elif distinct == len(set(words)):
            self.keys = _rank_keys(stems)
            self.uniform = True
        else:
            self.keys = _rank_keys(words)
            self.uniform = False
        self._pos: dict[Any, int] | None = None
        self.syn_union: frozenset[str] | None = None

    @property
    def pos(self) -> dict[Any, int]:
        if self._pos is None:
            self._pos = dict(zip(self.keys, range(len(self.keys))))
        return self._pos

    def word_keys(self) -> list[Any]:
        return _rank_keys(self.words) if self.uniform else self.keys


def _syn_others(syn_get: SynGet) -> SynGet:
    """``stem -> syn_get(stem) - {stem}``, cached (for :func:`_hyp_syn_union`)."""
    cache: dict[str, frozenset[str]] = {}

    def others(stem: str) -> frozenset[str]:
        hit = cache.get(stem)
        if hit is None:
            syns = syn_get(stem)
            hit = syns - {stem} if stem in syns else syns
            cache[stem] = hit
        return hit

    return others


def _hyp_syn_union(h: _Prepared, others: SynGet) -> frozenset[str]:
    """Every word the synonym stage could match for some hypothesis stem."""
    if h.syn_union is None:
        h.syn_union = frozenset().union(*map(others, set(h.stems)))
    return h.syn_union


def _align_fast(
    h: _Prepared,
    r: _Prepared,
    syn_get: SynGet,
    href_out: list[int] | None = None,
    others: SynGet | None = None,
) -> tuple[int, int]:
    """Matches and chunks of one prepared (hypothesis, reference) pair (see the module
    docstring). ``href_out``, when given, receives the reference position matched by each
    hypothesis word (-1: unmatched); ``others``: a cached :func:`_syn_others` of
    ``syn_get``, when the caller keeps one.

    Matches are kept as ``rref`` (reference position -> hypothesis position); a match
    continues a chunk when the next reference word is matched to the next hypothesis word,
    and the chunks counted in reference order are the ones NLTK counts in hypothesis order.
    """
    nh = len(h.words)
    nr = len(r.words)
    if h.uniform and r.uniform:
        rref = list(map(h.pos.get, r.keys, _FREES))
        m = nr - rref.count(_FREE)
    else:
        hpos = h.pos if not h.uniform else dict(zip(h.word_keys(), range(nh)))
        rref = list(map(hpos.get, r.word_keys(), _FREES))
        m = nr - rref.count(_FREE)
        if m < nh and m < nr:
            m += _stem_stage(h.stems, r.stems, rref)
    if m < nh and m < nr:
        union = h.syn_union if h.syn_union is not None else _hyp_syn_union(h, others or _syn_others(syn_get))
        if not union.isdisjoint(r.stems):
            rs = r.stems
            cand = [j for j in compress(range(nr), map(_FREE.__eq__, rref)) if rs[j] in union]
            m += _synonym_stage(h.stems, rs, rref, cand, syn_get)
    if href_out is not None:
        href = [-1] * nh
        for j, i in enumerate(rref):
            if i >= 0:
                href[i] = j
        href_out.extend(href)
    if m == 0:
        return 0, 0
    return m, m - list(map(sub, rref[1:], rref)).count(1)


def _stem_stage(hs: Sequence[Any], rs: Sequence[Any], rref: list[int]) -> int:
    """NLTK's stem stage: free hypothesis positions from the end each take the highest free
    reference position with an equal stem. Returns the new matches."""
    used = set(rref)
    pos: dict[Any, list[int]] = {}
    for j in compress(range(len(rs)), map(_FREE.__eq__, rref)):
        lst = pos.get(rs[j])
        if lst is None:
            pos[rs[j]] = [j]
        else:
            lst.append(j)
    m = 0
    for i in range(len(hs) - 1, -1, -1):
        if i not in used:
            lst = pos.get(hs[i])
            if lst:
                rref[lst.pop()] = i
                m += 1
    return m


def _synonym_stage(
    hs: Sequence[Any],
    rs: Sequence[Any],
    rref: list[int],
    cand: list[int],
    syns_of: Callable[[Any], frozenset[Any]],
) -> int:
    """NLTK's synonym stage: free hypothesis positions from the end each take the highest
    free reference position whose stem is the hypothesis stem or one of its synonyms.
    ``cand``: the free reference positions (ascending) whose stems are synonyms of some
    hypothesis stem; no other can match, nor can a stem equal to a free hypothesis stem be
    free any more. Returns the new matches."""
    positions: dict[Any, list[int]] = {}
    for j in cand:
        lst = positions.get(rs[j])
        if lst is None:
            positions[rs[j]] = [j]
        else:
            lst.append(j)
    if not positions:
        return 0
    used = set(rref)
    m = 0
    for i in range(len(hs) - 1, -1, -1):
        if i in used:
            continue
        syns = syns_of(hs[i])
        if syns.isdisjoint(positions):
            continue
        best_j = -1
        best_key = None
        for syn in syns.intersection(positions):
            j = positions[syn][-1]
            if j > best_j:
                best_j = j
                best_key = syn
        rref[best_j] = i
        m += 1
        lst = positions[best_key]
        lst.pop()
        if not lst:
            del positions[best_key]
            if not positions:
                break
    return m


def _score(m: int, chunks: int, nh: int, nr: int, alpha: float, beta: float, gamma: float) -> float:
    # NLTK: P, R, Fmean, frag inside `try: ... except ZeroDivisionError: return 0.0`
    if m == 0 or nh == 0 or nr == 0:
        return 0.0
    precision = float(m) / nh
    recall = float(m) / nr
    denominator = alpha * precision + (1 - alpha) * recall
    if denominator == 0:
        return 0.0
    fmean = (precision * recall) / denominator
    frag_frac = float(chunks) / m
    penalty = gamma * frag_frac**beta
    return (1 - penalty) * fmean


# --------------------------------------------------------------------------------------------
# Batch
# --------------------------------------------------------------------------------------------


class _Vocabulary(dict[str, int]):
    """token -> word id (lowercased word), interning words and their stems on first sight."""

    def __init__(self, stem_cache: dict[str, str], stem: Callable[[str], str]) -> None:
        super().__init__()
        self.stem_cache = stem_cache
        self.stem = stem
        self.word_id: dict[str, int] = {}
        self.words: list[str] = []
        self.stem_id: dict[str, int] = {}
        self.stems: list[str] = []
        self.sid_of_wid: list[int] = []

    def __missing__(self, token: str) -> int:
        word = token.lower()
        wid = self.word_id.get(word)
        if wid is None:
            wid = len(self.words)
            self.word_id[word] = wid
            self.words.append(word)
            st = self.stem_cache.get(word)
            if st is None:
                st = self.stem(word)
                self.stem_cache[word] = st
            sid = self.stem_id.get(st)
            if sid is None:
                sid = len(self.stems)
                self.stem_id[st] = sid
                self.stems.append(st)
            self.sid_of_wid.append(sid)
        self[token] = wid
        return wid


_KEY_LIMIT = 1 << 62
_GRID_LIMIT = 1 << 26  # booleans; past it, sorted keys instead


def _key_space(*sizes: int) -> None:
    """Refuse combined int64 keys that could overflow (the caller falls back)."""
    total = 1
    for size in sizes:
        total *= max(int(size), 1)
    if total >= _KEY_LIMIT:
        raise OverflowError("meteor: corpus too large for the batched alignment keys")


def _distinct(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (``np.unique`` without its hashing, slow on NumPy 2.4)."""
    out = np.sort(values)
    if len(out) > 1:
        out = out[np.concatenate(([True], out[1:] != out[:-1]))]
    return out


def _member(values: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    """``values[k] in sorted_keys`` for every k (``sorted_keys``: sorted, repeats allowed)."""
    if not len(sorted_keys):
        return np.zeros(len(values), bool)
    at = np.searchsorted(sorted_keys, values)
    at[at == len(sorted_keys)] = 0
    return sorted_keys[at] == values


def _match(hkeys: np.ndarray, rkeys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each of ``rkeys``: whether it is among ``hkeys`` (distinct) and at which index."""
    if not len(hkeys) or not len(rkeys):
        return np.zeros(len(rkeys), bool), np.zeros(len(rkeys), np.int64)
    perm = _stable_order(hkeys)
    hsorted = hkeys[perm]
    at = np.searchsorted(hsorted, rkeys)
    at[at == len(hsorted)] = 0
    return hsorted[at] == rkeys, perm[at]


def _stable_order(keys: np.ndarray) -> np.ndarray:
    """``np.argsort(keys, kind="stable")`` for non-negative keys: when they fit, the index is
    packed into the low bits and the values sorted (NumPy's value sort is the faster one)."""
    n = len(keys)
    if n == 0:
        return np.zeros(0, np.int64)
    shift = max((n - 1).bit_length(), 1)
    if int(keys.max()) < (1 << (62 - shift)):
        return np.sort((keys << shift) | np.arange(n, dtype=np.int64)) & ((1 << shift) - 1)
    return np.argsort(keys, kind="stable")  # pragma: no cover - beyond 2**62 after packing


def _starts(sorted_values: np.ndarray) -> np.ndarray:
    """Flags: where a run of equal values begins."""
    first = np.empty(len(sorted_values), bool)
    if len(first):
        first[0] = True
        np.not_equal(sorted_values[1:], sorted_values[:-1], out=first[1:])
    return first


def _rank_from_end(keys: np.ndarray) -> np.ndarray:
    """Rank of each element among the later elements with an equal key (0: the last one)."""
    n = len(keys)
    order = _stable_order(keys)
    first = _starts(keys[order])
    starts = np.flatnonzero(first)
    ends = np.append(starts[1:], n)
    rank = np.empty(n, np.int64)
    rank[order] = ends[np.cumsum(first) - 1] - 1 - np.arange(n)
    return rank


def _ragged_gather(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Concatenated ``arange(s, s + c)`` for every (s, c)."""
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, np.int64)
    offs = np.cumsum(counts) - counts
    return np.repeat(starts - offs, counts) + np.arange(total, dtype=np.int64)


class _Batch:
    """Integer views of a corpus: texts = the hypotheses, then every reference; one row per
    token (word id, stem id, text, item); per pair (= reference text) its item."""

    def __init__(
        self,
        hyps: list[Sequence[str]],
        refs: list[Sequence[str]],
        per_item: list[int],
        stem_cache: dict[str, str],
        stem: Callable[[str], str],
    ) -> None:
        self.n_items = n_items = len(hyps)
        self.per_item = np.array(per_item, np.int64)
        if (
            len(per_item) != n_items
            or int(self.per_item.sum()) != len(refs)
            or (n_items and int(self.per_item.min()) < 1)
        ):
            raise ValueError("meteor: every item needs at least one reference")
        seqs: list[Sequence[str]] = list(hyps)
        seqs.extend(refs)
        n_texts = len(seqs)
        self.n_pairs = n_texts - n_items
        self.lengths = lengths = np.fromiter(map(len, seqs), np.int64, n_texts)
        self.offsets = offsets = np.zeros(n_texts + 1, np.int64)
        np.cumsum(lengths, out=offsets[1:])
        self.n_tok = n_tok = int(offsets[-1])
        self.n_hyp_tok = int(offsets[n_items])
        self.vocab = vocab = _Vocabulary(stem_cache, stem)
        self.wids = np.fromiter(map(vocab.__getitem__, chain.from_iterable(seqs)), np.int64, n_tok)
        self.sid_of_wid = np.array(vocab.sid_of_wid, np.int64)
        self.sids = self.sid_of_wid[self.wids] if n_tok else np.zeros(0, np.int64)
        self.n_words = max(len(vocab.words), 1)
        self.n_stems = max(len(vocab.stems), 1)
        self.tid = np.repeat(np.arange(n_texts, dtype=np.int64), lengths)
        items = np.arange(n_items, dtype=np.int64)
        self.item_of_text = np.concatenate([items, np.repeat(items, self.per_item)])
        self.item_of_tok = self.item_of_text[self.tid]
        self.item_of_pair = self.item_of_text[n_items:]
        self.pair_of_tok = self.tid[self.n_hyp_tok :] - n_items
        self.max_len = int(lengths.max()) + 1 if n_texts else 1
        _key_space(n_texts, self.n_stems, self.max_len)
        _key_space(self.n_stems, self.n_stems)


def _exact_stem_stages(c: _Batch) -> tuple[np.ndarray, np.ndarray]:
    """Stages 1-2 of every pair: per reference token, matched or not, and the hypothesis
    position it is matched to (``_FREE`` if not).

    One stable sort by (item, stem) groups, within each item's stem, the hypothesis' tokens
    (its text comes first) and then each reference's, in sentence order; the rank of a token
    counted from the end of its run is its rank among the equal stems of its sentence. A
    reference token of rank r takes the hypothesis token of rank r, if any, unless the pair
    shares a stem that stands for several words in either sentence ("non-uniform"): such
    pairs are redone by :func:`_general_stages`.
    """
    n, n_items, n_hyp_tok = c.n_tok, c.n_items, c.n_hyp_tok
    hit = np.zeros(n - n_hyp_tok, bool)
    rref = np.full(n - n_hyp_tok, _FREE, np.int64)
    if n == 0:
        return hit, rref
    order = _stable_order(c.item_of_tok * c.n_stems + c.sids)
    group_first = _starts((c.item_of_tok * c.n_stems + c.sids)[order])
    ts = c.tid[order]
    sub_first = group_first.copy()
    sub_first[1:] |= ts[1:] != ts[:-1]
    sub = np.cumsum(sub_first) - 1
    sub_start = np.flatnonzero(sub_first)
    sub_end = np.append(sub_start[1:], n)
    rank = sub_end[sub] - 1 - np.arange(n)
    group = np.cumsum(group_first) - 1
    group_start = np.flatnonzero(group_first)
    hyp_first = ts[group_start] < n_items  # the run of the item's hypothesis leads its group
    hyp_size = np.where(hyp_first, sub_end[sub[group_start]] - group_start, 0)
    is_ref = ts >= n_items
    g = group
    take = is_ref & (rank < hyp_size[g])
    at = np.flatnonzero(take)
    ref_tok = order[at] - n_hyp_tok
    hyp_tok = order[group_start[g[at]] + hyp_size[g[at]] - 1 - rank[at]]
    hit[ref_tok] = True
    rref[ref_tok] = hyp_tok - c.offsets[c.item_of_tok[hyp_tok]]

    # Non-uniform runs: several words in one run of equal stems.
    ws = c.wids[order]
    mixed = ~sub_first[1:] & (ws[1:] != ws[:-1])
    if mixed.any():
        bad = np.zeros(len(sub_start), bool)
        bad[sub[1:][mixed]] = True
        hyp_bad = hyp_first & bad[sub[group_start]]
        unsafe_tok = is_ref & (((hyp_size[g] > 0) & bad[sub]) | hyp_bad[g])
        unsafe = np.flatnonzero(
            np.bincount(c.pair_of_tok[order[unsafe_tok] - n_hyp_tok], minlength=c.n_pairs)
        )
        if len(unsafe):
            r_loc, r_hit, r_pos = _general_stages(c, unsafe)
            hit[r_loc] = r_hit
            rref[r_loc] = r_pos
    return hit, rref


def _general_stages(c: _Batch, pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stages 1-2 for the given pairs with each pair's own copy of its hypothesis: exact on
    (word, rank) keys, then stems ranked among each pair's leftovers. Returns the reference
    tokens (index among reference tokens), matched or not, and the hypothesis position."""
    n_local = len(pairs)
    items = c.item_of_pair[pairs]
    h_cnt = c.lengths[items]
    h_idx = _ragged_gather(c.offsets[items], h_cnt)
    h_pair = np.repeat(np.arange(n_local, dtype=np.int64), h_cnt)
    h_pos = h_idx - np.repeat(c.offsets[items], h_cnt)
    texts = c.n_items + pairs
    r_cnt = c.lengths[texts]
    r_idx = _ragged_gather(c.offsets[texts], r_cnt)
    r_pair = np.repeat(np.arange(n_local, dtype=np.int64), r_cnt)
    nw, ns, ml = c.n_words, c.n_stems, c.max_len
    _key_space(n_local, max(nw, ns), ml)
    # 1. exact: (pair, word, rank of the word in its text)
    h_wk = h_pair * nw + c.wids[h_idx]
    r_wk = r_pair * nw + c.wids[r_idx]
    e_hit, e_at = _match(h_wk * ml + _rank_from_end(h_wk), r_wk * ml + _rank_from_end(r_wk))
    h_used = np.zeros(len(h_idx), bool)
    h_used[e_at[e_hit]] = True
    r_pos = np.where(e_hit, h_pos[e_at], _FREE)
    # 2. stems of the leftovers, ranked among the leftovers of the same pair
    h_left = np.flatnonzero(~h_used)
    r_left = np.flatnonzero(~e_hit)
    h_sk = h_pair[h_left] * ns + c.sids[h_idx[h_left]]
    r_sk = r_pair[r_left] * ns + c.sids[r_idx[r_left]]
    s_hit, s_at = _match(h_sk * ml + _rank_from_end(h_sk), r_sk * ml + _rank_from_end(r_sk))
    r_pos[r_left[s_hit]] = h_pos[h_left[s_at[s_hit]]]
    r_hit = e_hit
    r_hit[r_left[s_hit]] = True
    return r_idx - c.n_hyp_tok, r_hit, r_pos


def _synonym_relation(c: _Batch, syn_get: SynGet, hyp_tok: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For the stems of the hypothesis tokens ``hyp_tok`` (indices): the sorted (stem,
    synonym) keys over the corpus' stems, each synonym other than the stem itself; and the
    sorted (item, synonym) keys: what some of those stems of the item has as a synonym."""
    ns = c.n_stems
    stems = c.vocab.stems
    stem_id = c.vocab.stem_id
    hyp_keys = _distinct(c.item_of_tok[hyp_tok] * ns + c.sids[hyp_tok])
    u_items = hyp_keys // ns
    u_sids = hyp_keys % ns
    counts = np.zeros(ns, np.int64)
    firsts = np.zeros(ns, np.int64)
    dst: list[int] = []
    for s in _distinct(u_sids).tolist():
        st = stems[s]
        others = [stem_id[x] for x in syn_get(st) if x != st and x in stem_id]
        firsts[s] = len(dst)
        counts[s] = len(others)
        dst.extend(others)
    dst_arr = np.array(dst, np.int64)
    # dst lists each stem's synonyms in increasing stem order
    rel_keys = np.sort(np.repeat(np.arange(ns, dtype=np.int64), counts) * ns + dst_arr)
    cnt = counts[u_sids]
    gathered = dst_arr[_ragged_gather(firsts[u_sids], cnt)] if len(dst) else np.zeros(0, np.int64)
    union_keys = np.sort(np.repeat(u_items, cnt) * ns + gathered)
    return rel_keys, union_keys


def _synonym_stage_batch(
    c: _Batch, hit: np.ndarray, rref: np.ndarray, cand: np.ndarray, rel_keys: np.ndarray
) -> None:
    """NLTK's synonym stage for every pair with candidates, in place on ``hit``/``rref``.

    ``cand``: the free reference tokens (indices among reference tokens, ascending) whose stem
    is a synonym of some stem of their item's hypothesis. The edges (free hypothesis
    position i, candidate j) of a pair with a synonym relation are sorted by i, then j, both
    descending; NLTK's walk (hypothesis from its end, each word taking its highest free
    candidate) is then: repeatedly, every pair's first live edge is a match, and the edges
    sharing its i or its j die. Each round settles one hypothesis word per pair.
    """
    ns, ml, n_hyp_tok = c.n_stems, c.max_len, c.n_hyp_tok
    cand_pair = c.pair_of_tok[cand]
    starts = np.flatnonzero(np.concatenate(([True], cand_pair[1:] != cand_pair[:-1])))
    pairs = cand_pair[starts]
    n_cand = np.diff(np.append(starts, len(cand)))
    # free hypothesis positions of those pairs
    items = c.item_of_pair[pairs]
    cnt = c.lengths[items]
    h_idx = _ragged_gather(c.offsets[items], cnt)
    h_local = np.repeat(np.arange(len(pairs), dtype=np.int64), cnt)
    h_pos = h_idx - np.repeat(c.offsets[items], cnt)
    if len(pairs) * ml <= _GRID_LIMIT:  # a (pair, position) grid of the matched hypothesis words
        local = np.full(c.n_pairs, -1, np.int64)
        local[pairs] = np.arange(len(pairs), dtype=np.int64)
        lp = local[c.pair_of_tok[hit]]
        grid = np.zeros((len(pairs), ml), bool)
        grid[lp[lp >= 0], rref[hit][lp >= 0]] = True
        free = ~grid[h_local, h_pos]
    else:
        free = ~_member(pairs[h_local] * ml + h_pos, np.sort(c.pair_of_tok[hit] * ml + rref[hit]))
    h_idx, h_local, h_pos = h_idx[free], h_local[free], h_pos[free]
    # every free hypothesis position with every candidate of its pair, kept if synonyms
    reps = n_cand[h_local]
    e_h = np.repeat(np.arange(len(h_idx), dtype=np.int64), reps)
    e_c = _ragged_gather(starts[h_local], reps)
    ok = _member(c.sids[h_idx[e_h]] * ns + c.sids[n_hyp_tok + cand[e_c]], rel_keys)
    e_pair = h_local[e_h[ok]]
    e_i = h_pos[e_h[ok]]
    e_j = cand[e_c[ok]]
    order = np.lexsort((-e_j, -e_i, e_pair))
    e_pair, e_i, e_j = e_pair[order], e_i[order], e_j[order]
    alive = np.ones(len(e_pair), bool)
    while True:
        idx = np.flatnonzero(alive)
        if not len(idx):
            break
        lead = idx[np.concatenate(([True], e_pair[idx[1:]] != e_pair[idx[:-1]]))]
        rref[e_j[lead]] = e_i[lead]
        hit[e_j[lead]] = True
        alive &= ~_member(e_pair * ml + e_i, np.sort(e_pair[lead] * ml + e_i[lead]))
        alive &= ~_member(e_j, np.sort(e_j[lead]))


def score_batch(
    hyps: list[Sequence[str]],
    refs: list[Sequence[str]],
    per_item: list[int],
    stem_cache: dict[str, str],
    stem: Callable[[str], str],
    syn_get: SynGet,
    alpha: float,
    beta: float,
    gamma: float,
) -> tuple[list[float], list[int]]:
    """NLTK METEOR of every (hypothesis, references) item: the best score over the item's
    references and the index of the first reference reaching it.

    ``hyps[i]`` and ``refs`` are token sequences (not yet lowercased): the references of all
    items in order, ``per_item[i]`` (>= 1) of them for item i. ``stem_cache`` (lowercased
    word -> stem, updated) and ``stem`` give the stems, ``syn_get(stem)`` the synonyms.
    Raises ``OverflowError`` when the corpus is too large for the int64 keys (the caller
    then scores item by item).
    """
    c = _Batch(hyps, refs, per_item, stem_cache, stem)
    n_items, n_pairs, n_hyp_tok = c.n_items, c.n_pairs, c.n_hyp_tok
    pair_of_tok = c.pair_of_tok
    hit, rref = _exact_stem_stages(c)
    m = np.bincount(pair_of_tok[hit], minlength=n_pairs)
    nh = c.lengths[c.item_of_pair]
    nr = c.lengths[n_items:]

    # 3. synonyms, where a free reference stem is a synonym of some stem of the hypothesis
    open_pair = (m < nh) & (m < nr)
    if open_pair.any():
        ns = c.n_stems
        # hypothesis tokens free in some open pair of their item (only their synonyms count)
        in_open = hit & open_pair[pair_of_tok]
        matched = np.bincount(
            c.offsets[c.item_of_pair[pair_of_tok[in_open]]] + rref[in_open], minlength=n_hyp_tok
        )
        n_open = np.bincount(c.item_of_pair[open_pair], minlength=n_items)
        needed = np.flatnonzero(matched < n_open[c.item_of_tok[:n_hyp_tok]])
        rel_keys, union_keys = _synonym_relation(c, syn_get, needed)
        ref_item_stem = c.item_of_tok[n_hyp_tok:] * ns + c.sids[n_hyp_tok:]
        cand = ~hit & open_pair[pair_of_tok] & _member(ref_item_stem, union_keys)
        if cand.any():
            _synonym_stage_batch(c, hit, rref, np.flatnonzero(cand), rel_keys)
            m = np.bincount(pair_of_tok[hit], minlength=n_pairs)

    linked = (rref[1:] - rref[:-1] == 1) & hit[1:] & hit[:-1] & (pair_of_tok[1:] == pair_of_tok[:-1])
    chunks = m - np.bincount(pair_of_tok[1:][linked], minlength=n_pairs)
    scores = _scores(m, chunks, nh, nr, alpha, beta, gamma)
    first_pair = np.zeros(n_items, np.int64)
    np.cumsum(c.per_item[:-1], out=first_pair[1:])
    if not n_pairs:
        return [0.0] * n_items, [0] * n_items
    best_score = np.maximum.reduceat(scores, first_pair)
    local = np.arange(n_pairs, dtype=np.int64) - first_pair[c.item_of_pair]
    at_best = np.where((scores == best_score[c.item_of_pair]) & (scores > 0), local, n_pairs)
    best_k = np.minimum.reduceat(at_best, first_pair)
    best_k[best_k == n_pairs] = 0
    return best_score.tolist(), best_k.tolist()


def _scores(
    m: np.ndarray, chunks: np.ndarray, nh: np.ndarray, nr: np.ndarray, alpha: float, beta: float, gamma: float
) -> np.ndarray:
    """:func:`_score` elementwise: the same IEEE operations in the same order; the power by
    Python's ``**`` on each distinct (chunks, matches)."""
    out = np.zeros(len(m))
    ok = m > 0
    if not ok.any():
        return out
    mm = m[ok].astype(np.float64)
    precision = mm / nh[ok]
    recall = mm / nr[ok]
    denominator = alpha * precision + (1 - alpha) * recall
    fmean = (precision * recall) / np.where(denominator == 0, 1.0, denominator)
    code = chunks[ok] * (int(m.max()) + 1) + m[ok]
    order = np.argsort(code)
    sorted_code = code[order]
    first = np.empty(len(code), bool)
    first[0] = True
    np.not_equal(sorted_code[1:], sorted_code[:-1], out=first[1:])
    uniq = sorted_code[first]
    inverse = np.empty(len(code), np.int64)
    inverse[order] = np.cumsum(first) - 1
    base = int(m.max()) + 1
    powers = np.array([(float(c // base) / (c % base)) ** beta for c in uniq.tolist()])
    penalty = gamma * powers[inverse.ravel()]
    out[ok] = np.where(denominator == 0, 0.0, (1 - penalty) * fmean)
    return out
