"""The paraphrase index of METEOR 1.5 as ``metricore.metrics.meteor15.paraphrase.build_index``
built it before the compiled and set-based parsers (commit 439c69f): the table read as text
(``gzip.open(..., "rt", errors="replace")``, universal newlines, as the jar's ``readLine``),
record by record, a Python dict of paraphrases and a key per phrase prefix. Kept verbatim
apart from the key function, which tests may replace with a weak one to make keys collide.
"""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import Callable, Iterable

import numpy as np

from metricore.metrics.meteor15.normalize import java_tokens

__all__ = ["MAX_PHRASE", "build_index", "phrase_key"]

MAX_PHRASE = 7


def phrase_key(phrase: str) -> int:
    digest = hashlib.blake2b(phrase.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def _phrase(line: str) -> str:
    line = line.rstrip("\n")
    # the table separates words by single spaces; anything else goes through the tokenizer
    if "  " in line or "\t" in line or "\f" in line or line.startswith(" ") or line.endswith(" "):
        return " ".join(java_tokens(line))
    return line


def _prefix_keys(phrases: Iterable[str], key: Callable[[str], int]) -> np.ndarray:
    keys: list[int] = []
    for phrase in phrases:
        words = phrase.split(" ")
        keys.extend(key(" ".join(words[:n])) for n in range(1, len(words) + 1))
    return np.unique(np.array(keys, dtype=np.uint64))


def _position(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    pos = np.searchsorted(sorted_keys, keys)
    pos[pos == len(sorted_keys)] = 0
    return np.where(sorted_keys[pos] == keys, pos, -1) if len(sorted_keys) else np.full(len(keys), -1)


def build_index(source: str, key: Callable[[str], int] = phrase_key) -> dict[str, np.ndarray]:
    phrase_ids: dict[str, int] = {}
    refs: list[str] = []
    emit_node: list[int] = []
    emit_phrase: list[int] = []
    last_ref = None
    last_key = 0
    with gzip.open(source, "rt", encoding="utf-8", errors="replace") as f:
        while f.readline():  # the probability line
            ref = _phrase(f.readline())
            par = _phrase(f.readline())
            if ref != last_ref:
                if ref.count(" ") + 1 > MAX_PHRASE:
                    raise ValueError(f"{source}: phrase longer than {MAX_PHRASE} words: {ref!r}")
                refs.append(ref)
                last_ref = ref
                last_key = key(ref)
            emit_node.append(last_key)
            emit_phrase.append(phrase_ids.setdefault(par, len(phrase_ids)))
    node_keys = _prefix_keys(refs, key)
    emit_keys = np.array(emit_node, dtype=np.uint64)
    order = np.argsort(emit_keys, kind="stable")  # file order within a node
    emits = np.array(emit_phrase, dtype=np.int32)[order]
    counts = np.bincount(np.searchsorted(node_keys, emit_keys), minlength=len(node_keys))
    node_emits = np.zeros(len(node_keys) + 1, dtype=np.int64)
    np.cumsum(counts, out=node_emits[1:])
    keys = np.fromiter((key(p) for p in phrase_ids), dtype=np.uint64, count=len(phrase_ids))
    lengths = np.fromiter((p.count(" ") + 1 for p in phrase_ids), dtype=np.uint8, count=len(phrase_ids))
    if lengths.max(initial=0) > MAX_PHRASE:
        raise ValueError(f"{source}: paraphrase longer than {MAX_PHRASE} words")
    gram_keys = np.union1d(node_keys, _prefix_keys(phrase_ids, key))
    by_key = np.argsort(keys, kind="stable")
    sorted_keys = keys[by_key]
    found = _position(sorted_keys, gram_keys)
    gram_pid = np.where(found >= 0, by_key[found], -1).astype(np.int32)
    return {
        "gram_keys": gram_keys,
        "gram_node": _position(node_keys, gram_keys).astype(np.int32),
        "gram_pid": gram_pid,
        "node_emits": node_emits,
        "emits": emits,
        "phrase_words": lengths,
    }
