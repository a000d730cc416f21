"""The English paraphrase table of METEOR 1.5 as a compact, memory-mapped index.

The jar reads ``pycocoevalcap/meteor/data/paraphrase-en.gz`` (5.3 million records of three
lines: probability, reference phrase, paraphrase) into a trie over reference phrases
(``edu.cmu.meteor.aligner.ParaphraseTransducer``): from a start word it walks one word at a
time, stops at the first prefix no reference phrase has, and at every node where phrases
end emits their paraphrases in file order. Matching then compares word ids, i.e. phrases.

The index is built on first use and cached under :func:`~.data.cache_dir` as a folder of
``.npy`` files, memory-mapped by later processes (:func:`load_paraphrases`). The folder's
name carries the format and a fingerprint of the table's *content* (:func:`index_folder`),
so every environment of a machine with the same pycocoevalcap data shares one copy. The
index:

* ``gram_keys``: the sorted 64-bit keys (:func:`phrase_key`) of every *gram*, i.e. of each
  prefix of a reference phrase or of a paraphrase (a phrase is a prefix of itself). A line's
  n-grams are looked up by extending each start position one word at a time while the
  n-gram so far is a gram: no longer n-gram can be a trie node or a paraphrase;
* ``gram_node[g]``: the trie node of gram ``g`` (-1 when no reference phrase starts with
  it); ``emits[node_emits[k]:node_emits[k + 1]]`` are the paraphrase ids node ``k`` emits,
  in file order;
* ``gram_pid[g]``: the paraphrase id of gram ``g`` (-1 when it is no paraphrase); ids number
  the distinct paraphrases in order of first appearance; ``phrase_words[id]`` is a
  paraphrase's length in words.

A phrase is its words joined by one space; a false hit needs a 64-bit hash collision.

The build is :mod:`.paraphrase_build`'s (about 4 s with the compiled parser, 18 s without);
here: the cache (:func:`index_folder`, :func:`prepare_index`: one builder per machine at a
time, written to a temporary folder and renamed into place) and the lookups.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import shutil
import tempfile
import threading
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from metricore.metrics.meteor15 import paraphrase_build
from metricore.metrics.meteor15.data import cache_dir, meteor_dir
from metricore.metrics.meteor15.paraphrase_build import (
    MAX_PHRASE,
    build_index,
    compiled_builder,
    key_position,
    phrase_key,
)

__all__ = [
    "FORMAT",
    "MAX_PHRASE",
    "IndexInfo",
    "ParaphraseTable",
    "build_index",
    "compiled_builder",
    "index_folder",
    "index_ready",
    "load_paraphrases",
    "phrase_key",
    "prepare_index",
    "table_path",
]

#: the index's layout (arrays and folder name); folders of other formats are removed
FORMAT = 4
_PREFIX = "meteor15-paraphrase-en.v"
_TMP_PREFIX = ".meteor15-paraphrase-"
_NAMES = ("gram_keys", "gram_node", "gram_pid", "node_emits", "emits", "phrase_words")
_ABOUT = "about.json"


def table_path() -> str:
    return os.path.join(meteor_dir(), "data", "paraphrase-en.gz")


# ------------------------------------------------------------------------- the cache


def _fingerprint(source: str) -> str:
    """A digest of the table's content, cheap enough for every process start (0.4 ms from the
    page cache, 11 ms from a cold disk; 136 KiB read): its size, its first and last 64 KiB
    and 16 evenly spaced 4 KiB samples. The last bytes hold gzip's trailer, the CRC-32 and
    length of the whole decompressed table (of the last gzip member; the shipped file has
    one), which the build checks as it decompresses: an edit anywhere in the text changes
    the fingerprint unless it keeps both the compressed size and the CRC-32. A digest of all
    62 MB would cost 0.1 s at every start; the file's modification time differs between
    copies of the same data (one per environment)."""
    st = os.stat(source)
    return _fingerprint_of(source, st.st_size, st.st_mtime_ns, st.st_ino)


@functools.lru_cache(maxsize=8)
def _fingerprint_of(source: str, size: int, mtime_ns: int, inode: int) -> str:
    # (the stat fields are the cache key: a replaced or rewritten file is read again)
    h = hashlib.blake2b(digest_size=12)
    h.update(size.to_bytes(8, "little"))
    with open(source, "rb") as f:
        samples = [(size * k // 17, 1 << 12) for k in range(1, 17)]
        for at, n in [(0, 1 << 16), *samples, (max(0, size - (1 << 16)), 1 << 16)]:
            f.seek(at)
            h.update(f.read(n))
    return h.hexdigest()


def index_folder(source: str | None = None) -> str:
    """Where the index of ``source`` (default: the installed table) is or will be cached."""
    source = table_path() if source is None else source
    return os.path.join(cache_dir(), f"{_PREFIX}{FORMAT}.{_fingerprint(source)}")


def index_ready() -> bool:
    """Whether this machine's cache holds the paraphrase index (loading it is then quick)."""
    return os.path.isdir(index_folder())


def folder_bytes(folder: str) -> int:
    """The size of a folder's files."""
    with os.scandir(folder) as it:
        return sum(e.stat().st_size for e in it if e.is_file())


def _write_atomic(folder: str, arrays: dict[str, np.ndarray], about: dict[str, object]) -> bool:
    """Write the index into a temporary folder, then rename it into place: readers see the
    whole index or none. ``False`` when another process renamed its copy first (kept)."""
    parent = os.path.dirname(folder)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=_TMP_PREFIX, dir=parent)
    try:
        # readable as the cache folder is (mkdtemp makes it private): an image may build the
        # index as one user for services that run as another
        os.chmod(tmp, os.stat(parent).st_mode & 0o777)
        for name, arr in arrays.items():
            np.save(os.path.join(tmp, name + ".npy"), arr)
        with open(os.path.join(tmp, _ABOUT), "w", encoding="utf-8") as f:
            json.dump(about, f, indent=1)
        os.rename(tmp, folder)
        return True
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        if os.path.isdir(folder):  # another process renamed its copy first: keep that one
            return False
        raise


#: an abandoned temporary folder (its builder was killed) is removed after this many seconds
_ABANDONED = 3600.0


def _remove_stale_indexes(current: str) -> None:
    """Indexes of other formats: no version of this code reads them again; and temporary
    folders left by builders that were killed. (Indexes of the same format for another
    content of the paraphrase file stay: several environments on one machine share the
    cache, each with its own pycocoevalcap install.)"""
    parent = os.path.dirname(current)
    now = time.time()
    for name in os.listdir(parent):
        path = os.path.join(parent, name)
        stale = name.startswith(_PREFIX) and not name.startswith(f"{_PREFIX}{FORMAT}.")
        if name.startswith(_TMP_PREFIX):
            with contextlib.suppress(OSError):
                stale = now - os.stat(path).st_mtime > _ABANDONED
        if stale:  # a process still using one keeps its maps
            shutil.rmtree(path, ignore_errors=True)


@contextlib.contextmanager
def _machine_lock(parent: str) -> Iterator[None]:
    """One builder per machine at a time (others wait, then find the index): an advisory
    lock on a file of the cache, released by the system if the builder dies. Where files
    cannot be locked (no ``fcntl``, a read-only cache, some network file systems), builders
    run side by side and the atomic rename keeps one copy."""
    try:
        import fcntl

        os.makedirs(parent, exist_ok=True)
        fd = os.open(os.path.join(parent, ".meteor15-paraphrase.lock"), os.O_RDWR | os.O_CREAT, 0o666)
    except (ImportError, OSError):
        yield
        return
    try:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


#: one build at a time in a process (a Space may ask from a background thread and a request)
_BUILD_LOCK = threading.Lock()


@dataclass(frozen=True)
class IndexInfo:
    """Where the paraphrase index is, and whether this call built it."""

    path: str  # the index folder
    bytes: int  # its size on disk
    built: bool  # built by this call (else found in the cache)
    seconds: float  # what this call took
    parser: str | None  # "compiled" or "python" when built now

    def summary(self) -> str:
        how = f"built now in {self.seconds:.1f} s ({self.parser} parser)" if self.built else "found"
        return f"METEOR 1.5 paraphrase index: {self.path} ({self.bytes / 2**20:.1f} MiB), {how}"


def _ensure(source: str) -> tuple[IndexInfo, dict[str, np.ndarray] | None]:
    """The index of ``source`` in the cache, built when missing; the arrays too when they
    could not be written there (a read-only cache: a warning, this process keeps them)."""
    t0 = time.perf_counter()
    folder = index_folder(source)
    if os.path.isdir(folder):
        return IndexInfo(folder, folder_bytes(folder), False, time.perf_counter() - t0, None), None
    with _BUILD_LOCK, _machine_lock(os.path.dirname(folder)):
        if os.path.isdir(folder):  # another thread or process built it meanwhile
            return IndexInfo(folder, folder_bytes(folder), False, time.perf_counter() - t0, None), None
        arrays, how = paraphrase_build.build(source)
        about = {"format": FORMAT, "source": source, "parser": how, "seconds": time.perf_counter() - t0}
        try:
            built = _write_atomic(folder, arrays, about)
        except OSError as exc:
            warnings.warn(f"meteor 1.5: cannot cache the paraphrase index in {folder} ({exc})", stacklevel=3)
            return IndexInfo(folder, 0, True, time.perf_counter() - t0, how), arrays
        _remove_stale_indexes(folder)
    seconds = time.perf_counter() - t0
    return IndexInfo(folder, folder_bytes(folder), built, seconds, how if built else None), None


def prepare_index(source: str | None = None) -> IndexInfo:
    """Build the paraphrase index of ``source`` (default: the installed table) into the cache
    unless it is there: what an image or a service runs ahead of time. Raises ``OSError``
    when the cache cannot be written."""
    info, arrays = _ensure(table_path() if source is None else source)
    if arrays is not None:
        raise OSError(f"meteor 1.5: cannot write the paraphrase index to {info.path}")
    return info


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
        pos = key_position(self.gram_keys, q)
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


@functools.lru_cache(maxsize=1)
def load_paraphrases() -> ParaphraseTable:
    """The cached index, memory-mapped; built on first use on this machine (see the module
    docstring for the time it takes)."""
    info, arrays = _ensure(table_path())
    if arrays is not None:
        return ParaphraseTable(*(arrays[n] for n in _NAMES))
    # plain ndarray views of the maps: np.memmap adds overhead to every searchsorted
    return ParaphraseTable(
        *(np.asarray(np.load(os.path.join(info.path, n + ".npy"), mmap_mode="r")) for n in _NAMES)
    )
