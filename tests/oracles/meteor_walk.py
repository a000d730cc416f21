"""A literal walk of NLTK 3.10's METEOR alignment stages (exact, stem, WordNet synonym;
hypothesis from its end, highest free reference position), used as an oracle for the fast
alignment in :mod:`metricore.metrics.meteor`."""

from __future__ import annotations

from collections.abc import Callable, Sequence


def align(
    hw: Sequence[str],
    hs: Sequence[str],
    rw: Sequence[str],
    rs: Sequence[str],
    syn_get: Callable[[str], frozenset[str]],
) -> tuple[int, int]:
    """Matches and chunks of one (hypothesis, reference) pair: words ``hw``/``rw`` and their
    stems ``hs``/``rs``."""
    nh = len(hw)
    nr = len(rw)
    href = [-1] * nh
    # 1. exact
    positions: dict[str, list[int]] = {}
    for j in range(nr):
        w = rw[j]
        lst = positions.get(w)
        if lst is None:
            positions[w] = [j]
        else:
            lst.append(j)
    used = [False] * nr
    left = 0
    for i in range(nh - 1, -1, -1):
        lst = positions.get(hw[i])
        if lst:
            j = lst.pop()
            href[i] = j
            used[j] = True
        else:
            left += 1
    m = nh - left
    if left and m < nr:
        # 2. stems of the leftovers
        positions = {}
        for j in range(nr):
            if not used[j]:
                s = rs[j]
                lst = positions.get(s)
                if lst is None:
                    positions[s] = [j]
                else:
                    lst.append(j)
        rest = 0
        for i in range(nh - 1, -1, -1):
            if href[i] < 0:
                lst = positions.get(hs[i])
                if lst:
                    j = lst.pop()
                    href[i] = j
                    used[j] = True
                    m += 1
                else:
                    rest += 1
        if rest and m < nr:
            # 3. synonyms of the leftover hypothesis stems, against the leftover reference stems
            positions = {}
            for j in range(nr):
                if not used[j]:
                    s = rs[j]
                    lst = positions.get(s)
                    if lst is None:
                        positions[s] = [j]
                    else:
                        lst.append(j)
            for i in range(nh - 1, -1, -1):
                if href[i] < 0:
                    stem = hs[i]
                    best_j = -1
                    best_key = None
                    lst = positions.get(stem)  # NLTK adds the word itself to its synonyms
                    if lst:
                        best_j = lst[-1]
                        best_key = stem
                    syns = syn_get(stem)
                    if len(syns) <= len(positions):
                        for syn in syns:
                            lst = positions.get(syn)
                            if lst and lst[-1] > best_j:
                                best_j = lst[-1]
                                best_key = syn
                    else:
                        for key, lst in positions.items():
                            if lst and lst[-1] > best_j and key in syns:
                                best_j = lst[-1]
                                best_key = key
                    if best_key is not None:
                        positions[best_key].pop()
                        href[i] = best_j
                        m += 1
    if m == 0:
        return 0, 0
    chunks = 1
    prev_i = -2
    prev_j = -2
    first = True
    for i in range(nh):
        j = href[i]
        if j >= 0:
            if not first and not (i == prev_i + 1 and j == prev_j + 1):
                chunks += 1
            first = False
            prev_i = i
            prev_j = j
    return m, chunks
