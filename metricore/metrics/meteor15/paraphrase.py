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

The build (:func:`build_index`) reads the table once, in chunks of whole lines
(:func:`_line_chunks`), into the distinct grams with their keys and flags (:class:`_Parsed`),
then lays the arrays out with numpy (:func:`_assemble`). The parse is done by the compiled
``_paraphrase.c`` when it is built (about 3 s and 0.3 GB for the whole table on a 2-core
machine, most of it decompression), else by :func:`_parse_python` (about 12 s and 0.6 GB);
both give the same arrays, which are the arrays of the original record-by-record builder
(the test oracle ``tests/oracles/meteor15_paraphrase_index.py``).
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import hashlib
import itertools
import json
import operator
import os
import queue
import shutil
import tempfile
import threading
import time
import warnings
from array import array
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass
from types import ModuleType

import numpy as np

from metricore.metrics.meteor15.data import cache_dir, meteor_dir
from metricore.metrics.meteor15.native import ENV_PURE_PYTHON

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
# the longest phrase of paraphrase-en.gz, in words (checked when the index is built)
MAX_PHRASE = 7


def phrase_key(phrase: str) -> int:
    """The 64-bit key of a phrase (words joined by one space)."""
    digest = hashlib.blake2b(phrase.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def table_path() -> str:
    return os.path.join(meteor_dir(), "data", "paraphrase-en.gz")


# ------------------------------------------------------------------------- the compiled parser

try:
    from metricore.metrics.meteor15 import _paraphrase as _built  # type: ignore[attr-defined]
except ImportError:  # no compiler when the package was installed
    _built = None


def _stale(module: ModuleType | None) -> bool:
    """Whether ``module`` was compiled from another version of the ``_paraphrase.c`` beside
    it (an editable install whose source changed): it must not run then."""
    source = os.path.join(os.path.dirname(__file__), "_paraphrase.c")
    if module is None or not os.path.exists(source):  # a wheel ships no source
        return False
    with open(source, "rb") as f:
        return getattr(module, "SOURCE_HASH", "") != hashlib.sha256(f.read()).hexdigest()[:16]


if _stale(_built):
    warnings.warn(
        "meteor 1.5: the compiled paraphrase parser is older than its source, so the Python parser "
        "is used; rebuild it with `pip install --no-deps -e .` (or `bash scripts/setup`)",
        RuntimeWarning,
        stacklevel=1,
    )
    _built = None


def compiled_builder() -> ModuleType | None:
    """The compiled parser when it is built, current and not switched off by
    ``METRICORE_METEOR15_PURE_PYTHON=1``, else ``None``."""
    if _built is None or os.environ.get(ENV_PURE_PYTHON, "") not in ("", "0"):
        return None
    return _built


# ------------------------------------------------------------------------- reading the table


#: bytes of decompressed text read at a time
_CHUNK = 1 << 22


def _line_chunks(source: str) -> Generator[bytes, None, None]:
    """The table's decompressed bytes in chunks of whole lines, each ending in ``\\n``: line
    breaks as Java's ``readLine`` and Python's universal newlines read them (``\\r\\n``,
    ``\\r`` and ``\\n`` end a line; a last line without one still counts)."""
    rest = b""
    with gzip.open(source, "rb") as f:
        while block := f.read(_CHUNK):
            data = rest + block
            held = b""
            if b"\r" in data:
                if data.endswith(b"\r"):  # perhaps the first half of "\r\n"
                    data, held = data[:-1], b"\r"
                data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            cut = data.rfind(b"\n") + 1
            rest = data[cut:] + held
            if cut:
                yield data[:cut]
    rest = rest.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if rest:
        yield rest if rest.endswith(b"\n") else rest + b"\n"


def _replaced(chunk: bytes) -> bytes:
    """``chunk`` as text decoded with ``errors="replace"`` reads: each invalid UTF-8 sequence
    becomes U+FFFD (a chunk holds whole lines, and no sequence spans a line break, so
    decoding chunk by chunk replaces what decoding the stream replaces)."""
    return chunk.decode("utf-8", "replace").encode("utf-8")


def _utf8(chunk: bytes) -> bytes:
    if not chunk.isascii():
        try:
            chunk.decode("utf-8")
        except UnicodeDecodeError:
            return _replaced(chunk)
    return chunk


# StringTokenizer's delimiters that can remain in a line (\r and \n end lines)
_TO_SPACE = bytes.maketrans(b"\t\f", b"  ")


def _needs_tokens(chunk: bytes) -> bool:
    """Whether a line of ``chunk`` is other than words separated by single spaces."""
    return any(s in chunk for s in (b"\t", b"\f", b"  ", b"\n ", b" \n")) or chunk.startswith(b" ")


def _tokens(line: bytes) -> bytes:
    """A line's phrase: its ``StringTokenizer`` tokens joined by one space."""
    return b" ".join([t for t in line.translate(_TO_SPACE).split(b" ") if t])


# ------------------------------------------------------------------------- the parse


@dataclass(frozen=True)
class _Parsed:
    """The table as the parsers read it. An *entry* is a distinct gram (phrases told apart
    by their bytes, as a dict of phrases does)."""

    keys: np.ndarray  # uint64 per entry: its phrase_key
    node: np.ndarray  # bool per entry: a prefix of a reference phrase
    pid_entry: np.ndarray  # int32 per paraphrase id: its entry
    words: np.ndarray  # uint8 per paraphrase id: its length in words
    rec_pid: np.ndarray  # int32 per record: its paraphrase id
    run_entry: np.ndarray  # int32 per run of records with one reference phrase: its entry
    run_start: np.ndarray  # int64 per run: its first record


def _read_ahead(chunks: Generator[bytes, None, None], depth: int = 2) -> Iterator[bytes]:
    """``chunks``, produced by a thread up to ``depth`` chunks ahead: decompression (zlib
    releases the GIL) then runs while the compiled parser (which releases it too) works."""
    ready: queue.Queue[tuple[bytes | None, BaseException | None]] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def offer(item: tuple[bytes | None, BaseException | None]) -> bool:
        while not stop.is_set():  # the consumer may be gone: never block for good
            with contextlib.suppress(queue.Full):
                ready.put(item, timeout=0.1)
                return True
        return False

    def produce() -> None:
        try:
            for chunk in chunks:
                if not offer((chunk, None)):
                    return
            offer((None, None))
        except BaseException as exc:  # handed to the consumer, which raises it
            offer((None, exc))
        finally:
            chunks.close()  # the file, when the consumer stopped early

    thread = threading.Thread(target=produce, name="meteor15-paraphrase-reader", daemon=True)
    thread.start()
    try:
        while True:
            chunk, error = ready.get()
            if error is not None:
                raise error
            if chunk is None:
                return
            yield chunk
    finally:
        stop.set()
        thread.join()


def _parse_compiled(source: str, module: ModuleType) -> _Parsed | None:
    """The parse by ``_paraphrase.c``; ``None`` when it leaves the table to the Python parse
    (a phrase longer than :data:`MAX_PHRASE` words, which that parse reports)."""
    # the table's slots sized from the file (the shipped table: 3.3 million grams, 62 MB)
    builder = module.Builder(MAX_PHRASE, os.path.getsize(source) // 16)
    for chunk in _read_ahead(_line_chunks(source)):
        if not builder.feed(chunk):
            builder.feed(_replaced(chunk))
    out = builder.finish()
    if out is None:
        return None
    keys, node, pid_entry, words, rec_pid, run_entry, run_start = out
    return _Parsed(
        keys=np.frombuffer(keys, dtype=np.uint64),
        node=np.frombuffer(node, dtype=np.bool_),
        pid_entry=np.frombuffer(pid_entry, dtype=np.int32),
        words=np.frombuffer(words, dtype=np.uint8),
        rec_pid=np.frombuffer(rec_pid, dtype=np.int32),
        run_entry=np.frombuffer(run_entry, dtype=np.int32),
        run_start=np.frombuffer(run_start, dtype=np.int64),
    )


def _with_prefixes(phrases: Iterable[bytes]) -> set[bytes]:
    """``phrases`` and all their prefixes (in words), a word count at a time."""
    out = set(phrases)
    longer = [p for p in out if b" " in p]
    while longer:
        fresh = {p[: p.rfind(b" ")] for p in longer}
        fresh.difference_update(out)
        out |= fresh
        longer = [p for p in fresh if b" " in p]
    return out


def _keys(grams: Iterable[bytes]) -> np.ndarray:
    """The :func:`phrase_key` of each of ``grams`` (UTF-8 bytes)."""
    digests = map(
        operator.methodcaller("digest"), map(functools.partial(hashlib.blake2b, digest_size=8), grams)
    )
    out = bytearray()
    while batch := b"".join(itertools.islice(digests, 1 << 16)):
        out += batch
    return np.frombuffer(out, dtype="<u8").astype(np.uint64, copy=False)


def _parse_python(source: str) -> _Parsed:
    """The parse in Python: C-level set, dict and numpy operations over the table's lines,
    with a Python object per distinct phrase but no Python code per record (see the module
    docstring for its time)."""
    first_of: dict[bytes, int] = {}  # paraphrase -> its first record, in order of appearance
    firsts: list[np.ndarray] = []  # per record: its paraphrase's first record
    refs: list[bytes] = []  # the reference phrase of each run of records
    run_len = array("q")
    pending: list[bytes] = []

    def records(lines: list[bytes]) -> None:
        for ref, same in itertools.groupby(lines[1::3]):
            count = len(list(same))
            if refs and ref == refs[-1]:
                run_len[-1] += count
                continue
            if ref.count(b" ") >= MAX_PHRASE:
                raise ValueError(f"{source}: phrase longer than {MAX_PHRASE} words: {ref.decode()!r}")
            refs.append(ref)
            run_len.append(count)
        pars = lines[2::3]
        at = itertools.count(sum(map(len, firsts)))
        firsts.append(np.fromiter(map(first_of.setdefault, pars, at), dtype=np.int64, count=len(pars)))

    for chunk in _line_chunks(source):
        chunk = _utf8(chunk)
        lines = chunk.split(b"\n")
        lines.pop()
        if _needs_tokens(chunk):
            lines = [_tokens(line) for line in lines]
        if pending:
            lines[:0] = pending
        cut = len(lines) - len(lines) % 3
        pending = lines[cut:]
        del lines[cut:]
        records(lines)
    if pending:  # a last record cut short: its missing lines read as empty
        records(pending + [b""] * (3 - len(pending)))
    # paraphrase ids: the distinct paraphrases numbered in order of first appearance
    first = np.concatenate(firsts) if firsts else np.zeros(0, dtype=np.int64)
    firsts.clear()
    is_first = first == np.arange(len(first))
    pid_at = np.cumsum(is_first, dtype=np.int32)
    pid_at -= 1
    rec_pid = pid_at[first]
    del first, is_first, pid_at
    pars = list(first_of)  # in id order
    words = np.fromiter(map(bytes.count, pars, itertools.repeat(b" ")), dtype=np.int64, count=len(pars))
    if len(words) and words.max() >= MAX_PHRASE:
        raise ValueError(f"{source}: paraphrase longer than {MAX_PHRASE} words")
    # entries: the paraphrases in id order, then the other grams
    nodes = _with_prefixes(refs)
    others = list(_with_prefixes(itertools.chain(pars, refs)).difference(first_of))
    entry = {g: i for i, g in enumerate(others, len(pars)) if g in nodes}
    entry.update((r, int(rec_pid[first_of[r]])) for r in nodes if r in first_of)
    first_of.clear()
    grams = pars + others
    del pars, others
    starts = np.zeros(len(run_len), dtype=np.int64)
    np.cumsum(np.frombuffer(run_len, dtype=np.int64)[:-1], out=starts[1:])
    return _Parsed(
        keys=_keys(grams),
        node=np.fromiter(map(nodes.__contains__, grams), dtype=np.bool_, count=len(grams)),
        pid_entry=np.arange(len(words), dtype=np.int32),
        words=(words + 1).astype(np.uint8),
        rec_pid=rec_pid,
        run_entry=np.fromiter(map(entry.__getitem__, refs), dtype=np.int32, count=len(refs)),
        run_start=starts,
    )


def _position(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Index of each of ``keys`` in ``sorted_keys``, -1 where absent."""
    pos = np.searchsorted(sorted_keys, keys)
    pos[pos == len(sorted_keys)] = 0
    return np.where(sorted_keys[pos] == keys, pos, -1) if len(sorted_keys) else np.full(len(keys), -1)


def _emits(p: _Parsed, run_node: np.ndarray, n_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """``node_emits`` and ``emits``: a node emits the paraphrases of its records in file
    order, i.e. the runs of records sorted by node (stably), each run's records in order."""
    order = np.argsort(run_node, kind="stable")
    run_len = np.diff(p.run_start, append=np.int64(len(p.rec_pid)))
    lengths = run_len[order]
    moved = p.run_start[order] - (np.cumsum(lengths) - lengths)
    at = np.repeat(moved, lengths)
    at += np.arange(len(at))
    counts = np.bincount(run_node, weights=run_len, minlength=n_nodes)
    node_emits = np.zeros(n_nodes + 1, dtype=np.int64)
    np.cumsum(counts.astype(np.int64), out=node_emits[1:])
    return node_emits, p.rec_pid[at]


def _assemble(p: _Parsed) -> dict[str, np.ndarray]:
    """The index arrays of a parse."""
    order = np.argsort(p.keys)
    gram_keys = p.keys[order]
    if np.any(gram_keys[1:] == gram_keys[:-1]):
        return _assemble_by_key(p)
    # one entry per key: the arrays are the entries' in key order
    entry_pid = np.full(len(order), -1, dtype=np.int32)
    entry_pid[p.pid_entry] = np.arange(len(p.pid_entry), dtype=np.int32)
    is_node = p.node[order]
    gram_node = np.cumsum(is_node, dtype=np.int32)
    gram_node -= 1
    gram_node[~is_node] = -1
    entry_node = np.empty(len(order), dtype=np.int32)
    entry_node[order] = gram_node
    node_emits, emits = _emits(p, entry_node[p.run_entry], int(gram_node.max(initial=-1)) + 1)
    return {
        "gram_keys": gram_keys,
        "gram_node": gram_node,
        "gram_pid": entry_pid[order],
        "node_emits": node_emits,
        "emits": emits,
        "phrase_words": p.words,
    }


def _unique(keys: np.ndarray) -> np.ndarray:
    """``np.unique`` of 64-bit keys (which numpy 2.4 does ten times slower than a sort)."""
    s = np.sort(keys)
    return s[np.concatenate(([True], s[1:] != s[:-1]))] if len(s) else s


def _assemble_by_key(p: _Parsed) -> dict[str, np.ndarray]:
    """:func:`_assemble` where distinct grams share a key (a 64-bit collision): keyed by the
    keys, as the original builder is, so that such grams merge alike (one node, the lowest
    paraphrase id)."""
    gram_keys = _unique(p.keys)
    node_keys = _unique(p.keys[p.node])
    pid_keys = p.keys[p.pid_entry]
    by_key = np.argsort(pid_keys, kind="stable")
    found = _position(pid_keys[by_key], gram_keys)
    run_node = np.searchsorted(node_keys, p.keys[p.run_entry])
    node_emits, emits = _emits(p, run_node, len(node_keys))
    return {
        "gram_keys": gram_keys,
        "gram_node": _position(node_keys, gram_keys).astype(np.int32),
        "gram_pid": np.where(found >= 0, by_key[found], -1).astype(np.int32),
        "node_emits": node_emits,
        "emits": emits,
        "phrase_words": p.words,
    }


def build_index(source: str, *, compiled: bool | None = None) -> dict[str, np.ndarray]:
    """Parse the gzip table into the index arrays (see the module docstring): by the compiled
    parser when it is there (``compiled=None``) or asked for (``True``: an error if it is
    missing), else in Python (``False``)."""
    return _build(source, compiled)[0]


def _build(source: str, compiled: bool | None) -> tuple[dict[str, np.ndarray], str]:
    module = compiled_builder() if compiled is None else (_built if compiled else None)
    if compiled and module is None:
        raise RuntimeError("meteor 1.5: the compiled paraphrase parser is not built")
    parsed = _parse_compiled(source, module) if module is not None else None
    how = "compiled"
    if parsed is None:
        parsed, how = _parse_python(source), "python"
    return _assemble(parsed), how


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
        arrays, how = _build(source, None)
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
