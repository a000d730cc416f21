"""The English paraphrase table of METEOR 1.5 as a compact, memory-mapped index.

The jar reads ``pycocoevalcap/meteor/data/paraphrase-en.gz`` (5.3 million records of three
lines: probability, reference phrase, paraphrase) into a trie over reference phrases
(``edu.cmu.meteor.aligner.ParaphraseTransducer``): from a start word it walks one word at a
time, stops at the first prefix no reference phrase has, and at every node where phrases
end emits their paraphrases in file order. Matching then compares word ids, i.e. phrases.

Parsing 62 MB of gzip takes a minute, so it is done once and cached under
:func:`~.data.cache_dir` (a folder of ``.npy`` files, written to a temporary folder and
renamed into place; its name carries the table's size and modification time). The index:

* ``gram_keys``: the sorted 64-bit keys (:func:`phrase_key`) of every *gram*, i.e. of each
  prefix of a reference phrase or of a paraphrase (a phrase is a prefix of itself). A line's
  n-grams are looked up by extending each start position one word at a time while the
  n-gram so far is a gram: no longer n-gram can be a trie node or a paraphrase;
* ``gram_node[g]``: the trie node of gram ``g`` (-1 when no reference phrase starts with
  it); ``emits[node_emits[k]:node_emits[k + 1]]`` are the paraphrase ids node ``k`` emits,
  in file order;
* ``gram_pid[g]``: the paraphrase id of gram ``g`` (-1 when it is no paraphrase);
  ``phrase_words[id]`` is a paraphrase's length in words.

A phrase is its words joined by one space; a false hit needs a 64-bit hash collision.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
import shutil
import tempfile
import threading
import warnings
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from metricore.metrics.meteor15.data import cache_dir, meteor_dir
from metricore.metrics.meteor15.normalize import java_tokens

__all__ = ["MAX_PHRASE", "ParaphraseTable", "build_index", "load_paraphrases", "phrase_key"]

_FORMAT = 3
_NAMES = ("gram_keys", "gram_node", "gram_pid", "node_emits", "emits", "phrase_words")
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


def _prefix_keys(phrases: Iterable[str]) -> np.ndarray:
    keys: list[int] = []
    for phrase in phrases:
        words = phrase.split(" ")
        keys.extend(phrase_key(" ".join(words[:n])) for n in range(1, len(words) + 1))
    return np.unique(np.array(keys, dtype=np.uint64))


def _position(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Index of each of ``keys`` in ``sorted_keys``, -1 where absent."""
    pos = np.searchsorted(sorted_keys, keys)
    pos[pos == len(sorted_keys)] = 0
    return np.where(sorted_keys[pos] == keys, pos, -1) if len(sorted_keys) else np.full(len(keys), -1)


def build_index(source: str) -> dict[str, np.ndarray]:
    """Parse the gzip table into the index arrays (see the module docstring)."""
    phrase_ids: dict[str, int] = {}
    refs: list[str] = []
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
                if ref.count(" ") + 1 > MAX_PHRASE:
                    raise ValueError(f"{source}: phrase longer than {MAX_PHRASE} words: {ref!r}")
                refs.append(ref)
                last_ref = ref
                last_key = phrase_key(ref)
            emit_node.append(last_key)
            emit_phrase.append(phrase_ids.setdefault(par, len(phrase_ids)))
    node_keys = _prefix_keys(refs)
    del refs
    emit_keys = np.array(emit_node, dtype=np.uint64)
    del emit_node
    order = np.argsort(emit_keys, kind="stable")  # file order within a node
    emits = np.array(emit_phrase, dtype=np.int32)[order]
    del emit_phrase
    counts = np.bincount(np.searchsorted(node_keys, emit_keys), minlength=len(node_keys))
    del emit_keys
    node_emits = np.zeros(len(node_keys) + 1, dtype=np.int64)
    np.cumsum(counts, out=node_emits[1:])
    keys = np.fromiter((phrase_key(p) for p in phrase_ids), dtype=np.uint64, count=len(phrase_ids))
    lengths = np.fromiter((p.count(" ") + 1 for p in phrase_ids), dtype=np.uint8, count=len(phrase_ids))
    if lengths.max(initial=0) > MAX_PHRASE:
        raise ValueError(f"{source}: paraphrase longer than {MAX_PHRASE} words")
    gram_keys = np.union1d(node_keys, _prefix_keys(phrase_ids))
    del phrase_ids
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
    gram_keys: np.ndarray
    gram_node: np.ndarray
    gram_pid: np.ndarray
    node_emits: np.ndarray
    emits: np.ndarray
    phrase_words: np.ndarray

    def grams(self, phrases: list[str]) -> list[tuple[int, int] | None]:
        """``(node, paraphrase id)`` of each phrase that is a gram (-1 for what it is not),
        ``None`` for a phrase that is not even a gram."""
        if not phrases:
            return []
        q = np.fromiter((phrase_key(p) for p in phrases), dtype=np.uint64, count=len(phrases))
        pos = _position(self.gram_keys, q)
        hit = pos >= 0
        where = pos[hit]
        nodes = np.full(len(q), -1, dtype=np.int64)
        pids = np.full(len(q), -1, dtype=np.int64)
        nodes[hit] = self.gram_node[where]
        pids[hit] = self.gram_pid[where]
        return [(n, p) if h else None for h, n, p in zip(hit.tolist(), nodes.tolist(), pids.tolist())]

    @functools.lru_cache(maxsize=1 << 14)  # noqa: B019 (one table per process)
    def emitted(self, node: int) -> tuple[frozenset[int], dict[int, tuple[int, ...]]]:
        """The paraphrases a node emits: their ids, and ``{id: its ranks in the node's file
        order}``."""
        out: dict[int, list[int]] = {}
        lo, hi = int(self.node_emits[node]), int(self.node_emits[node + 1])
        for rank, pid in enumerate(self.emits[lo:hi].tolist()):
            out.setdefault(pid, []).append(rank)
        return frozenset(out), {k: tuple(v) for k, v in out.items()}


def index_ready() -> bool:
    """Whether this machine's cache holds the paraphrase index (loading it is then quick)."""
    return os.path.isdir(_index_folder(table_path()))


def _remove_stale_indexes(current: str) -> None:
    """Indexes of older formats: no version of this code reads them again. (Indexes of the
    same format for another copy of the paraphrase file stay: several environments on one
    machine share the cache, each with its own pycocoevalcap install.)"""
    prefix = "meteor15-paraphrase-en.v"
    for name in os.listdir(os.path.dirname(current)):
        if name.startswith(prefix) and not name.startswith(f"{prefix}{_FORMAT}."):
            # a process still using one keeps its maps
            shutil.rmtree(os.path.join(os.path.dirname(current), name), ignore_errors=True)


#: one build at a time in a process (a Space may ask from a background thread and a request)
_BUILD_LOCK = threading.Lock()


@functools.lru_cache(maxsize=1)
def load_paraphrases() -> ParaphraseTable:
    """The cached index (built on first use, about a minute and 1.3 GB at its peak, once per
    machine), memory-mapped."""
    source = table_path()
    folder = _index_folder(source)
    with _BUILD_LOCK:
        if not os.path.isdir(folder):
            arrays = build_index(source)
            try:
                _write_atomic(folder, arrays)
            except OSError as exc:  # a read-only home: use the index for this process only
                warnings.warn(
                    f"meteor 1.5: cannot cache the paraphrase index in {folder} ({exc})", stacklevel=2
                )
                return ParaphraseTable(*(arrays[n] for n in _NAMES))
            _remove_stale_indexes(folder)
    # plain ndarray views of the maps: np.memmap adds overhead to every searchsorted
    return ParaphraseTable(
        *(np.asarray(np.load(os.path.join(folder, n + ".npy"), mmap_mode="r")) for n in _NAMES)
    )
