"""Building METEOR 1.5's paraphrase index (:mod:`.paraphrase` describes it) from
``paraphrase-en.gz``.

The table is read once, in chunks of whole lines (:func:`_line_chunks`: gzip, line breaks as
Java's ``readLine`` and universal newlines, invalid UTF-8 replaced as ``errors="replace"``
decodes it), into its distinct grams with their keys and flags, its paraphrase ids and its
runs of records (:class:`_Parsed`); numpy then lays the arrays out (:func:`_assemble`). The
parse is done by the compiled ``_paraphrase.c`` when it is built (decompression in a second
thread meanwhile), else by :func:`_parse_python`. Whole builds of the shipped table, each in
a new process on a shared 2-core machine (load 1.5-2.5), CPU time and peak resident memory:
compiled parser 3.3-3.5 s and 0.30 GB (wall 2.4-3.6 s, less when the second core is free);
Python parser 16.5-18 s and 0.70 GB; the original record-by-record builder 35 s and 1.39 GB.
Both parsers give the arrays of that original builder (kept as the test oracle
``tests/oracles/meteor15_paraphrase_index.py``), keys and all, also where keys collide.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import hashlib
import itertools
import operator
import os
import queue
import threading
import warnings
from array import array
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass
from types import ModuleType

import numpy as np

from metricore.metrics.meteor15.builds import pure_python_requested, stale_build

__all__ = ["MAX_PHRASE", "build", "build_index", "compiled_builder", "key_position", "phrase_key"]

# the longest phrase of paraphrase-en.gz, in words (checked when the index is built)
MAX_PHRASE = 7


def phrase_key(phrase: str) -> int:
    """The 64-bit key of a phrase (words joined by one space)."""
    digest = hashlib.blake2b(phrase.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little")


# ------------------------------------------------------------------------- the compiled parser

try:
    from metricore.metrics.meteor15 import _paraphrase as _built  # type: ignore[attr-defined]
except ImportError:  # no compiler when the package was installed
    _built = None


if _built is not None and (_STALE := stale_build(_built, "_paraphrase.c", "the compiled paraphrase parser")):
    warnings.warn(_STALE, RuntimeWarning, stacklevel=1)
    _built = None


def compiled_builder() -> ModuleType | None:
    """The compiled parser when it is built, current and not switched off by
    ``METRICORE_METEOR15_PURE_PYTHON=1``, else ``None``."""
    if _built is None or pure_python_requested() is not None:
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
    """``chunk`` itself when it is valid UTF-8 (the shipped table is), else :func:`_replaced`."""
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
    order: np.ndarray | None = None  # the order that sorts `keys`, when the parser has it


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
    keys, order, node, pid_entry, words, rec_pid, run_entry, run_start = out
    return _Parsed(
        keys=np.frombuffer(keys, dtype=np.uint64),
        order=np.frombuffer(order, dtype=np.int64),
        node=np.frombuffer(node, dtype=np.bool_),
        pid_entry=np.frombuffer(pid_entry, dtype=np.int32),
        words=np.frombuffer(words, dtype=np.uint8),
        rec_pid=np.frombuffer(rec_pid, dtype=np.int32),
        run_entry=np.frombuffer(run_entry, dtype=np.int32),
        run_start=np.frombuffer(run_start, dtype=np.int64),
    )


def _with_prefixes(phrases: Iterable[bytes], known: dict[bytes, int] | None = None) -> set[bytes]:
    """``phrases`` and all their prefixes (in words), found a word count at a time; less
    the phrases of ``known`` (whose prefixes are also found)."""
    known = known or {}
    out = set(itertools.filterfalse(known.__contains__, phrases))
    # (the dict's phrases in their order of allocation: walked with fewer cache misses)
    longer = [p for p in itertools.chain(known, out) if b" " in p]
    while longer:
        fresh = set(itertools.filterfalse(known.__contains__, {p[: p.rfind(b" ")] for p in longer}))
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
    with a Python object per distinct phrase but no Python code per record (16.5-18 s of CPU
    for the shipped table, 0.70 GB: see the module docstring)."""
    first_of: dict[bytes, int] = {}  # paraphrase -> its first record, in order of appearance
    firsts: list[np.ndarray] = []  # per record: its paraphrase's first record
    refs: list[bytes] = []  # the reference phrase of each run of records
    run_len = array("q")  # the runs' numbers of records
    pending: list[bytes] = []

    def records(lines: list[bytes]) -> None:
        here = lines[1::3]
        if not here:
            return
        # runs of one reference phrase: where a record's differs from the one before
        starts = [0, *itertools.compress(itertools.count(1), map(operator.ne, here[1:], here[:-1]))]
        lengths = np.diff(np.array(starts, dtype=np.int64), append=np.int64(len(here)))
        runs = list(map(here.__getitem__, starts))
        if refs and runs[0] == refs[-1]:  # the run goes on from the chunk before
            run_len[-1] += int(lengths[0])
            runs, lengths = runs[1:], lengths[1:]
        if runs and max(map(bytes.count, runs, itertools.repeat(b" "))) >= MAX_PHRASE:
            ref = next(r for r in runs if r.count(b" ") >= MAX_PHRASE)
            raise ValueError(f"{source}: phrase longer than {MAX_PHRASE} words: {ref.decode()!r}")
        refs.extend(runs)
        run_len.extend(lengths.tolist())
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
    # entries: the paraphrases in id order, then the other grams; the entry of each node
    nodes = _with_prefixes(refs)
    others = list(_with_prefixes(refs, first_of))
    entry = {g: i for i, g in enumerate(others, len(pars)) if g in nodes}
    entry.update((r, int(rec_pid[first_of[r]])) for r in nodes if r in first_of)
    first_of.clear()
    grams = pars + others
    del pars, others
    node = np.zeros(len(grams), dtype=np.bool_)
    node[np.fromiter(entry.values(), dtype=np.int64, count=len(entry))] = True
    starts = np.zeros(len(run_len), dtype=np.int64)
    np.cumsum(np.frombuffer(run_len, dtype=np.int64)[:-1], out=starts[1:])
    return _Parsed(
        keys=_keys(grams),
        node=node,
        pid_entry=np.arange(len(words), dtype=np.int32),
        words=(words + 1).astype(np.uint8),
        rec_pid=rec_pid,
        run_entry=np.fromiter(map(entry.__getitem__, refs), dtype=np.int32, count=len(refs)),
        run_start=starts,
    )


def key_position(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Index of each of ``keys`` in ``sorted_keys``, -1 where absent."""
    pos = np.searchsorted(sorted_keys, keys)
    pos[pos == len(sorted_keys)] = 0
    return np.where(sorted_keys[pos] == keys, pos, -1) if len(sorted_keys) else np.full(len(keys), -1)


def _emits(p: _Parsed, run_node: np.ndarray, n_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """``node_emits`` and ``emits``: a node emits the paraphrases of its records in file
    order, i.e. the runs of records sorted by node (stably), each run's records in order."""
    order = np.argsort(run_node, kind="stable")
    n = len(p.rec_pid)
    run_len = np.diff(p.run_start, append=np.int64(n))
    starts, lengths = p.run_start[order], run_len[order]
    # the records in that order, as the running sum of steps: +1 within a run (every run
    # has a record), a jump from the end of one run to the start of the next
    at = np.ones(n, dtype=np.int32 if n < 2**31 else np.int64)
    if n:
        at[0] = starts[0]
        at[(np.cumsum(lengths) - lengths)[1:]] = starts[1:] - (starts[:-1] + lengths[:-1] - 1)
    np.cumsum(at, out=at)
    counts = np.bincount(run_node, weights=run_len, minlength=n_nodes)
    node_emits = np.zeros(n_nodes + 1, dtype=np.int64)
    np.cumsum(counts.astype(np.int64), out=node_emits[1:])
    return node_emits, p.rec_pid[at]


def _assemble(p: _Parsed) -> dict[str, np.ndarray]:
    """The index arrays of a parse."""
    order = np.argsort(p.keys) if p.order is None else p.order
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
    found = key_position(pid_keys[by_key], gram_keys)
    run_node = np.searchsorted(node_keys, p.keys[p.run_entry])
    node_emits, emits = _emits(p, run_node, len(node_keys))
    return {
        "gram_keys": gram_keys,
        "gram_node": key_position(node_keys, gram_keys).astype(np.int32),
        "gram_pid": np.where(found >= 0, by_key[found], -1).astype(np.int32),
        "node_emits": node_emits,
        "emits": emits,
        "phrase_words": p.words,
    }


def build_index(source: str, *, compiled: bool | None = None) -> dict[str, np.ndarray]:
    """Parse the gzip table into the index arrays: by the compiled parser when it is there
    (``compiled=None``) or asked for (``True``: an error if it is missing), else in Python
    (``False``)."""
    return build(source, compiled)[0]


def build(source: str, compiled: bool | None = None) -> tuple[dict[str, np.ndarray], str]:
    """:func:`build_index`, and the parser that ran (``"compiled"`` or ``"python"``)."""
    module = compiled_builder() if compiled is None else (_built if compiled else None)
    if compiled and module is None:
        raise RuntimeError("meteor 1.5: the compiled paraphrase parser is not built")
    parsed = _parse_compiled(source, module) if module is not None else None
    how = "compiled"
    if parsed is None:
        parsed, how = _parse_python(source), "python"
    return _assemble(parsed), how
