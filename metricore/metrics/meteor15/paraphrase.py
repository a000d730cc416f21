"""The English paraphrase table of METEOR 1.5 as a compact, memory-mapped index.

The jar reads ``pycocoevalcap/meteor/data/paraphrase-en.gz`` (5.3 million records of three
lines: probability, reference phrase, paraphrase) into a trie over reference phrases
(``edu.cmu.meteor.aligner.ParaphraseTransducer``): from a start word it walks one word at a
time, stops at the first prefix no reference phrase has, and at every node where phrases
end emits their paraphrases in file order. Matching then compares word ids, i.e. phrases.

Parsing 62 MB of gzip takes a minute, so it is done once and cached under
:func:`~.data.cache_dir` (a folder of ``.npy`` files, written to a temporary folder and
renamed into place; its name carries the table's size and modification time). The index:

* ``node_keys``: the sorted 64-bit keys (:func:`phrase_key`) of every trie node, i.e. of
  each prefix of a reference phrase; ``emits[node_emits[k]:node_emits[k + 1]]`` are the
  paraphrase ids node ``k`` emits, in file order;
* ``phrase_keys``/``phrase_ids``: the sorted keys of the distinct paraphrases and their
  ids; ``phrase_words[id]`` is a paraphrase's length in words.

A phrase is its words joined by one space; a false hit needs a 64-bit hash collision.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
import tempfile
import warnings
from dataclasses import dataclass

import numpy as np

from metricore.metrics.meteor15.data import cache_dir, meteor_dir
from metricore.metrics.meteor15.normalize import java_tokens

__all__ = ["MAX_PHRASE", "ParaphraseTable", "build_index", "load_paraphrases", "phrase_key"]

_FORMAT = 2
_NAMES = ("node_keys", "node_emits", "emits", "phrase_keys", "phrase_ids", "phrase_words")
# the longest phrase of paraphrase-en.gz, in words (checked when the index is built)
MAX_PHRASE = 7


def phrase_key(phrase: str) -> int:
    """The 64-bit key of a phrase (words joined by one space)."""
    digest = hashlib.blake2b(phrase.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def table_path() -> str:
    return os.path.join(meteor_dir(), "data", "paraphrase-en.gz")


def _phrase(line: str) -> str:
    line = line.rstrip("\n")
    # the table separates words by single spaces; anything else goes through the tokenizer
    if "  " in line or "\t" in line or "\f" in line or line.startswith(" ") or line.endswith(" "):
        return " ".join(java_tokens(line))
    return line


def build_index(source: str) -> dict[str, np.ndarray]:
    """Parse the gzip table into the index arrays (see the module docstring)."""
    phrase_ids: dict[str, int] = {}
    prefix_keys: list[int] = []
    emit_node: list[int] = []
    emit_phrase: list[int] = []
    last_ref = None
    last_key = 0
    # universal newlines split lines as Java's readLine does (\n, \r, \r\n)
    with gzip.open(source, "rt", encoding="utf-8", errors="replace") as f:
        while f.readline():  # the probability line
            ref = _phrase(f.readline())
            par = _phrase(f.readline())
            if ref != last_ref:
                words = ref.split(" ")
                if len(words) > MAX_PHRASE:
                    raise ValueError(f"{source}: phrase longer than {MAX_PHRASE} words: {ref!r}")
                prefix_keys.extend(phrase_key(" ".join(words[:n])) for n in range(1, len(words) + 1))
                last_ref = ref
                last_key = prefix_keys[-1]
            emit_node.append(last_key)
            emit_phrase.append(phrase_ids.setdefault(par, len(phrase_ids)))
    node_keys = np.unique(np.array(prefix_keys, dtype=np.uint64))
    del prefix_keys
    emit_keys = np.array(emit_node, dtype=np.uint64)
    del emit_node
    order = np.argsort(emit_keys, kind="stable")  # file order within a node
    emits = np.array(emit_phrase, dtype=np.int32)[order]
    counts = np.bincount(np.searchsorted(node_keys, emit_keys), minlength=len(node_keys))
    node_emits = np.zeros(len(node_keys) + 1, dtype=np.int64)
    np.cumsum(counts, out=node_emits[1:])
    keys = np.fromiter((phrase_key(p) for p in phrase_ids), dtype=np.uint64, count=len(phrase_ids))
    lengths = np.fromiter((p.count(" ") + 1 for p in phrase_ids), dtype=np.uint8, count=len(phrase_ids))
    if lengths.max(initial=0) > MAX_PHRASE:
        raise ValueError(f"{source}: paraphrase longer than {MAX_PHRASE} words")
    by_key = np.argsort(keys, kind="stable")
    return {
        "node_keys": node_keys,
        "node_emits": node_emits,
        "emits": emits,
        "phrase_keys": keys[by_key],
        "phrase_ids": by_key.astype(np.int32),
        "phrase_words": lengths,
    }


def _index_folder(source: str) -> str:
    st = os.stat(source)
    return os.path.join(cache_dir(), f"meteor15-paraphrase-en.v{_FORMAT}.{st.st_size}.{int(st.st_mtime)}")


def _write_atomic(folder: str, arrays: dict[str, np.ndarray]) -> None:
    parent = os.path.dirname(folder)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".meteor15-paraphrase-", dir=parent)
    for name, arr in arrays.items():
        np.save(os.path.join(tmp, name + ".npy"), arr)
    try:
        os.rename(tmp, folder)
    except OSError:  # another process renamed its copy first: keep that one
        for name in arrays:
            os.remove(os.path.join(tmp, name + ".npy"))
        os.rmdir(tmp)


@dataclass(frozen=True, eq=False)
class ParaphraseTable:
    node_keys: np.ndarray
    node_emits: np.ndarray
    emits: np.ndarray
    phrase_keys: np.ndarray
    phrase_ids: np.ndarray
    phrase_words: np.ndarray

    def nodes(self, keys: list[int]) -> list[int]:
        """Node index of each prefix key, -1 where no reference phrase has that prefix."""
        return _lookup(self.node_keys, keys, None)

    def phrases(self, keys: list[int]) -> list[int]:
        """Paraphrase id of each phrase key, -1 where the phrase is no paraphrase."""
        return _lookup(self.phrase_keys, keys, self.phrase_ids)

    @functools.lru_cache(maxsize=1 << 14)  # noqa: B019 (one table per process)
    def emitted(self, node: int) -> dict[int, tuple[int, ...]]:
        """The paraphrases a node emits: ``{id: its ranks in the node's file order}``."""
        out: dict[int, list[int]] = {}
        lo, hi = int(self.node_emits[node]), int(self.node_emits[node + 1])
        for rank, pid in enumerate(np.asarray(self.emits[lo:hi]).tolist()):
            out.setdefault(pid, []).append(rank)
        return {k: tuple(v) for k, v in out.items()}


def _lookup(sorted_keys: np.ndarray, keys: list[int], values: np.ndarray | None) -> list[int]:
    if not keys:
        return []
    q = np.array(keys, dtype=np.uint64)
    pos = np.searchsorted(sorted_keys, q)
    pos[pos == len(sorted_keys)] = 0
    found = np.asarray(sorted_keys[pos]) == q
    out = pos if values is None else np.asarray(values[pos]).astype(np.int64)
    return np.where(found, out, -1).tolist()


@functools.lru_cache(maxsize=1)
def load_paraphrases() -> ParaphraseTable:
    """The cached index (built on first use), memory-mapped."""
    source = table_path()
    folder = _index_folder(source)
    if not os.path.isdir(folder):
        arrays = build_index(source)
        try:
            _write_atomic(folder, arrays)
        except OSError as exc:  # a read-only home: use the index for this process only
            warnings.warn(f"meteor 1.5: cannot cache the paraphrase index in {folder} ({exc})", stacklevel=2)
            return ParaphraseTable(*(arrays[n] for n in _NAMES))
    # plain ndarray views of the maps: np.memmap adds overhead to every searchsorted
    return ParaphraseTable(
        *(np.asarray(np.load(os.path.join(folder, n + ".npy"), mmap_mode="r")) for n in _NAMES)
    )
