"""METEOR 1.5's paraphrase index (:mod:`metricore.metrics.meteor15.paraphrase`,
:mod:`~metricore.metrics.meteor15.paraphrase_build`): both parsers
(compiled and Python) give, array for array, what the original builder gives
(``tests/oracles/meteor15_paraphrase_index.py``), on the shipped table and on generated
tables full of what the reader must handle (line breaks of three kinds, tabs, form feeds and
runs of spaces, invalid UTF-8, records cut short, repeated and interleaved phrases, several
gzip members, colliding keys); the cache is keyed by the table's content, shared, built by
one process at a time and safe when two build at once; its state is reported."""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import types
import zlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metricore.metrics.meteor15 import paraphrase, paraphrase_build, status
from tests.oracles import meteor15_paraphrase_index as oracle

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("gram_keys", "gram_node", "gram_pid", "node_emits", "emits", "phrase_words")
needs_build = pytest.mark.skipif(
    paraphrase_build._built is None, reason="the compiled parser is not built here"
)
PARSERS = [False, pytest.param(True, marks=needs_build)]


def _same(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> None:
    assert set(got) == set(want) == set(NAMES)
    for name in NAMES:
        g, w = got[name], want[name]
        assert g.dtype == w.dtype, (name, g.dtype, w.dtype)
        assert g.shape == w.shape, (name, g.shape, w.shape)
        assert np.array_equal(g, w), name


def _gz(folder: str, raw: bytes, name: str = "table.gz", members: int = 1) -> str:
    """``raw`` gzipped into ``folder`` (as ``members`` concatenated gzip members)."""
    path = os.path.join(folder, name)
    cut = [len(raw) * k // members for k in range(members + 1)]
    with open(path, "wb") as f:
        for a, b in zip(cut, cut[1:]):
            f.write(gzip.compress(raw[a:b], mtime=0))
    return path


@contextlib.contextmanager
def _chunk(size: int) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(paraphrase_build, "_CHUNK", size)
        yield


# --------------------------------------------------------------------------- generated tables

WORDS = ["a", "b", "ab", "man", "the", "é", "日本", "x\x0by", "\ufffd", "q\x85"]
SEPARATORS = [" ", " ", " ", "  ", "\t", "\f", " \t ", "\x0c\x0c"]
BAD = [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80", b"\xe2\x82"]
BREAKS = [b"\n", b"\n", b"\n", b"\r\n", b"\r"]
TABLE = b"0.1\na b\nc d\n0.2\na b\ne\n0.3\nf\na\n"


@st.composite
def phrases(draw: st.DrawFn) -> bytes:
    """A line of at most seven words, some with invalid UTF-8 in them, between separators."""
    words = [
        w.encode("utf-8") + (draw(st.sampled_from(BAD)) if draw(st.integers(0, 14)) == 0 else b"")
        for w in draw(st.lists(st.sampled_from(WORDS), min_size=0, max_size=oracle.MAX_PHRASE))
    ]
    seps = [draw(st.sampled_from(SEPARATORS)).encode() for _ in words]
    raw = b"".join(s + w for s, w in zip(seps, words))[len(seps[0]) :] if words else b""
    if draw(st.integers(0, 9)) == 0:
        raw = draw(st.sampled_from([b" ", b"\t", b"  "])) + raw
    if draw(st.integers(0, 9)) == 0:
        raw += draw(st.sampled_from([b" ", b"\f"]))
    return raw


@st.composite
def tables(draw: st.DrawFn) -> bytes:
    """A table: records of (probability, reference phrase, paraphrase) drawn from small pools,
    so that phrases repeat, runs of one reference phrase form and break, and phrases are
    prefixes of each other; line breaks of three kinds; sometimes a record cut short or a
    last line without its break."""
    refs = draw(st.lists(phrases(), min_size=1, max_size=6))
    pars = draw(st.lists(phrases(), min_size=1, max_size=10))
    lines: list[bytes] = []
    for _ in range(draw(st.integers(0, 30))):
        lines += [b"0.5", draw(st.sampled_from(refs)), draw(st.sampled_from(pars))]
    lines = lines[: len(lines) - draw(st.sampled_from([0, 0, 0, 1, 2]))]
    out = b"".join(line + draw(st.sampled_from(BREAKS)) for line in lines)
    if out and draw(st.booleans()):
        out = out.rstrip(b"\r\n")
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.sampled_from([1, 2, 5, 64, 1 << 22]), st.sampled_from([1, 1, 2]))
def test_both_parsers_build_the_original_index(raw: bytes, chunk: int, members: int) -> None:
    with tempfile.TemporaryDirectory() as tmp, _chunk(chunk):
        source = _gz(tmp, raw, members=members)
        want = oracle.build_index(source)
        _same(paraphrase_build.build_index(source, compiled=False), want)
        if paraphrase_build._built is not None:
            _same(paraphrase_build.build_index(source, compiled=True), want)


@settings(max_examples=60, deadline=None)
@given(tables(), st.integers(3, 40))
def test_colliding_keys_merge_as_in_the_original(raw: bytes, modulus: int) -> None:
    """With a key function that collides (a few dozen distinct keys), phrases sharing a key
    merge as the original builder merges them (one node; the lowest paraphrase id)."""

    def weak(text: str) -> int:
        return zlib.crc32(text.encode("utf-8", "surrogatepass")) % modulus

    def weak_keys(grams):  # type: ignore[no-untyped-def]
        return np.array([zlib.crc32(g) % modulus for g in grams], dtype=np.uint64)

    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        mp.setattr(paraphrase_build, "_keys", weak_keys)
        source = _gz(tmp, raw)
        _same(paraphrase_build.build_index(source, compiled=False), oracle.build_index(source, key=weak))


@pytest.mark.parametrize("compiled", PARSERS)
def test_edge_tables(tmp_path: Path, compiled: bool) -> None:
    cases = [
        b"",
        b"\n",
        b"0.1\n",
        b"0.1\na b\n",
        b"0.1\na b\nc",
        b"\n\n\n\n\n\n",
        b"0.1\r\na\r\nb\r\n0.2\ra\rc\r",
        b"0.1\na b c d e f g\nh i j k l m n\n",  # seven words: the longest allowed
        b"0.1\n a\tb \f\nc  d\n0.2\na b\nc d\n",  # the same phrases, spaced differently
        "0.1\né\u2028x\n\xa0y\n".encode(),  # not StringTokenizer's delimiters
        b"0.1\na\xffb\nc\xed\xa0\x80\n0.2\na\xef\xbf\xbdb\nc\n",  # invalid UTF-8, and its replacement
    ]
    for k, raw in enumerate(cases):
        source = _gz(str(tmp_path), raw, f"t{k}.gz")
        _same(paraphrase_build.build_index(source, compiled=compiled), oracle.build_index(source))


@pytest.mark.parametrize("compiled", PARSERS)
def test_phrases_longer_than_seven_words_are_refused_as_before(tmp_path: Path, compiled: bool) -> None:
    long = b"a b c d e f g h"
    for raw in (b"0.1\n" + long + b"\nx\n", b"0.1\nx\n" + long + b"\n", b"0.1\nx\ny\n0.1\nx\n" + long):
        source = _gz(str(tmp_path), raw)
        with pytest.raises(ValueError) as want:
            oracle.build_index(source)
        with pytest.raises(ValueError) as got:
            paraphrase_build.build_index(source, compiled=compiled)
        assert str(got.value) == str(want.value)


@needs_build
def test_compiled_builder_refuses_misuse() -> None:
    b = paraphrase_build._built.Builder(paraphrase.MAX_PHRASE)
    with pytest.raises(ValueError, match="line break"):
        b.feed(b"0.1\na")
    assert b.feed(b"0.1\na\xff\n") is False  # left for the caller to decode with replacement
    assert b.feed(b"0.1\na\nb\n") is True
    assert b.finish() is not None
    with pytest.raises(RuntimeError, match="finish"):
        b.feed(b"0.1\n")
    with pytest.raises(ValueError, match="max_phrase"):
        paraphrase_build._built.Builder(0)
    bare = paraphrase_build._built.Builder.__new__(paraphrase_build._built.Builder)
    with pytest.raises(RuntimeError, match="not initialised"):
        bare.feed(b"0.1\n")


@needs_build
@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=300), max_size=11))
def test_compiled_blake2b_is_hashlibs(data: list[bytes]) -> None:
    """Every variant of the compiled hash (one message at a time; four at a time, portable and
    AVX2) gives hashlib's BLAKE2b digests, across the one-block limit (128 bytes)."""
    want = [int.from_bytes(hashlib.blake2b(d, digest_size=8).digest(), "little") for d in data]
    for variant in (-1, 0, 1, 2):
        got = paraphrase_build._built.blake2b_64(data, variant)
        assert got == want or (got is None and variant == 2), variant


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([b"a", b"bc", b"\r", b"\n", b"\r\n", b" "]), max_size=40), st.integers(1, 9))
def test_line_chunks_split_as_universal_newlines(parts: list[bytes], chunk: int) -> None:
    raw = b"".join(parts)
    with tempfile.TemporaryDirectory() as tmp, _chunk(chunk):
        source = _gz(tmp, raw)
        chunks = list(paraphrase_build._line_chunks(source))
        with gzip.open(source, "rt", encoding="latin-1") as f:  # universal newlines
            want = [line if line.endswith("\n") else line + "\n" for line in f]
    assert all(c.endswith(b"\n") for c in chunks)
    assert b"".join(chunks).decode("latin-1").splitlines(keepends=True) == want


def test_read_ahead_hands_over_chunks_errors_and_stops() -> None:
    def chunks(n: int, fail: bool = False) -> Iterator[bytes]:
        yield from (str(k).encode() for k in range(n))
        if fail:
            raise OSError("disk gone")

    assert list(paraphrase_build._read_ahead(chunks(5))) == [b"0", b"1", b"2", b"3", b"4"]
    with pytest.raises(OSError, match="disk gone"):
        list(paraphrase_build._read_ahead(chunks(3, fail=True)))
    before = threading.active_count()
    early = paraphrase_build._read_ahead(chunks(10**9))
    assert next(early) == b"0"
    early.close()  # the consumer stops: the reader thread ends
    assert threading.active_count() == before


@pytest.mark.parametrize("compiled", PARSERS)
def test_a_damaged_file_fails_as_before(tmp_path: Path, compiled: bool) -> None:
    good = Path(_gz(str(tmp_path), TABLE * 100)).read_bytes()
    cases = {"truncated.gz": good[: len(good) // 2], "crc.gz": good[:-8] + bytes(8), "not-gzip.gz": b"text"}
    for name, raw in cases.items():
        (tmp_path / name).write_bytes(raw)
        source = str(tmp_path / name)
        with pytest.raises(Exception) as want:
            oracle.build_index(source)
        with pytest.raises(type(want.value)):
            paraphrase_build.build_index(source, compiled=compiled)


# --------------------------------------------------------------------------- the shipped table


@pytest.fixture(scope="module")
def shipped() -> tuple[str, dict[str, np.ndarray]]:
    try:
        source = paraphrase.table_path()
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        pytest.skip(str(exc))
    return source, oracle.build_index(source)  # about a minute and 1.3 GB


@pytest.mark.slow
@pytest.mark.parametrize("compiled", PARSERS)
def test_the_shipped_table_gives_the_original_index(
    shipped: tuple[str, dict[str, np.ndarray]], compiled: bool
) -> None:
    source, want = shipped
    assert len(want["gram_keys"]) > 3_000_000 and len(want["emits"]) > 5_000_000
    _same(paraphrase_build.build_index(source, compiled=compiled), want)


# --------------------------------------------------------------------------- the cache


def test_the_folder_is_named_by_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Copies of one table (other paths, other modification times: one per environment) share
    a folder; another content gets another one; the format is in the name."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "env1").mkdir()
    (tmp_path / "env2").mkdir()
    first = _gz(str(tmp_path / "env1"), TABLE)
    second = shutil.copy(first, tmp_path / "env2" / "table.gz")
    os.utime(second, (1_000_000, 1_000_000))
    assert paraphrase.index_folder(first) == paraphrase.index_folder(str(second))
    name = os.path.basename(paraphrase.index_folder(first))
    assert name.startswith(f"meteor15-paraphrase-en.v{paraphrase.FORMAT}.")
    assert os.path.dirname(paraphrase.index_folder(first)) == str(tmp_path / "cache" / "metricore")
    edited = _gz(str(tmp_path), TABLE.replace(b"0.2", b"0.7"), "edited.gz")
    assert os.path.getsize(edited) == os.path.getsize(first)
    assert paraphrase.index_folder(edited) != paraphrase.index_folder(first)
    with open(second, "r+b") as f:  # a small file is read whole
        f.seek(15)
        byte = f.read(1)
        f.seek(15)
        f.write(bytes([byte[0] ^ 1]))
    assert paraphrase.index_folder(str(second)) != paraphrase.index_folder(first)


def test_an_edit_between_the_samples_changes_the_folder(tmp_path: Path) -> None:
    """A large table whose edit lands between the sampled blocks: gzip's trailer (the CRC-32
    of the whole text) still tells the two apart."""
    rng = np.random.default_rng(7)
    text = rng.integers(97, 123, 3_000_000, dtype=np.uint8).tobytes()  # incompressible enough
    edited = bytearray(text)
    edited[1_000_000] ^= 1
    paths = []
    for k, raw in enumerate((text, bytes(edited))):
        path = tmp_path / f"t{k}.gz"
        path.write_bytes(gzip.compress(raw, compresslevel=0, mtime=0))  # stored blocks: local change
        paths.append(str(path))
    a, b = (np.frombuffer(Path(p).read_bytes(), dtype=np.uint8) for p in paths)
    size = len(a)
    assert len(b) == size
    sampled = np.zeros(size, dtype=bool)
    sampled[: 1 << 16] = sampled[size - (1 << 16) :] = True
    for k in range(1, 17):
        sampled[size * k // 17 : size * k // 17 + (1 << 12)] = True
    differ = np.flatnonzero(a != b)
    assert differ.size and not sampled[differ[differ < size - 8]].any()  # only the trailer is sampled
    assert paraphrase._fingerprint(paths[0]) != paraphrase._fingerprint(paths[1])


def test_prepare_builds_once_and_loads_the_same_arrays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    source = _gz(str(tmp_path), TABLE)
    first = paraphrase.prepare_index(source)
    assert first.built and first.parser in ("compiled", "python") and first.bytes > 0
    assert "built now" in first.summary() and first.path in first.summary()
    again = paraphrase.prepare_index(source)
    assert not again.built and again.path == first.path and again.bytes == first.bytes
    assert again.summary().endswith("found")
    want = oracle.build_index(source)
    _same({n: np.load(os.path.join(first.path, n + ".npy")) for n in NAMES}, want)
    about = json.loads((Path(first.path) / "about.json").read_text())
    assert about["format"] == paraphrase.FORMAT and about["source"] == source
    # readable as the cache folder is (mkdtemp alone would make it private)
    assert os.stat(first.path).st_mode & 0o777 == os.stat(os.path.dirname(first.path)).st_mode & 0o777


def test_an_unwritable_cache_builds_for_the_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    source = _gz(str(tmp_path), TABLE)
    with pytest.warns(UserWarning, match="cannot cache"):
        info, arrays = paraphrase._ensure(source)
    assert info.built and arrays is not None
    _same(arrays, oracle.build_index(source))
    with pytest.raises(OSError), pytest.warns(UserWarning):
        paraphrase.prepare_index(source)


def test_stale_indexes_and_abandoned_builds_are_removed(tmp_path: Path) -> None:
    """Folders of other formats and temporary folders of killed builders (older than an hour)
    go; the current format's folders of other contents, fresh temporary folders (a build in
    progress) and anything else stay."""
    current = tmp_path / f"meteor15-paraphrase-en.v{paraphrase.FORMAT}.aaaa"
    other_content = tmp_path / f"meteor15-paraphrase-en.v{paraphrase.FORMAT}.bbbb"
    older = tmp_path / f"meteor15-paraphrase-en.v{paraphrase.FORMAT - 1}.61813011.1764203460"
    abandoned = tmp_path / ".meteor15-paraphrase-abc"
    building = tmp_path / ".meteor15-paraphrase-def"
    unrelated = tmp_path / "something-else"
    for folder in (current, other_content, older, abandoned, building, unrelated):
        folder.mkdir()
    two_hours_ago = time.time() - 7200
    os.utime(abandoned, (two_hours_ago, two_hours_ago))
    paraphrase._remove_stale_indexes(str(current))
    assert current.is_dir() and other_content.is_dir() and building.is_dir() and unrelated.is_dir()
    assert not older.exists() and not abandoned.exists()


CHILD = r"""
import json, os, sys, time
from metricore.metrics.meteor15 import paraphrase, paraphrase_build
source, go, mode = sys.argv[1:4]
calls = []
build = paraphrase_build.build
def slow_build(source, compiled=None):
    calls.append(1)
    out = build(source, compiled)
    time.sleep(1.0)  # both processes are past their check for the folder by now
    return out
paraphrase_build.build = slow_build
if mode == "unlocked":
    import contextlib
    paraphrase._machine_lock = lambda parent: contextlib.nullcontext()
while not os.path.exists(go):
    time.sleep(0.002)
info = paraphrase.prepare_index(source)
print(json.dumps({"parsed": len(calls), "built": info.built, "path": info.path}))
"""


@pytest.mark.parametrize("mode", ["locked", "unlocked"])
def test_two_processes_at_once(tmp_path: Path, mode: str) -> None:
    """Two processes start on an empty cache together. With the machine lock one builds and
    the other waits and finds the index; without it (a file system that cannot lock) both
    build, one rename wins and the other copy is dropped. Either way: one complete index, no
    temporary folder left."""
    source = _gz(str(tmp_path), TABLE * 50)
    go = tmp_path / "go"
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, source, str(go), mode], stdout=subprocess.PIPE, env=env, cwd=ROOT
        )
        for _ in range(2)
    ]
    time.sleep(1.0)  # both are waiting for the go
    go.touch()
    outs = [json.loads(p.communicate(timeout=120)[0]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert outs[0]["path"] == outs[1]["path"]
    assert sorted(o["built"] for o in outs) == [False, True]
    assert sorted(o["parsed"] for o in outs) == ([0, 1] if mode == "locked" else [1, 1])
    cache = tmp_path / "cache" / "metricore"
    lock = [".meteor15-paraphrase.lock"] if mode == "locked" else []
    assert sorted(os.listdir(cache)) == sorted([*lock, os.path.basename(outs[0]["path"])])
    _same({n: np.load(os.path.join(outs[0]["path"], n + ".npy")) for n in NAMES}, oracle.build_index(source))


def test_a_stale_compiled_parser_is_refused() -> None:
    from metricore.metrics.meteor15.builds import stale_build

    def stale(module):
        return stale_build(module, "_paraphrase.c", "the compiled paraphrase parser")

    reason = stale(types.SimpleNamespace(SOURCE_HASH="0" * 16))
    assert reason is not None and "older than its source _paraphrase.c" in reason
    if paraphrase_build._built is not None:
        assert stale(paraphrase_build._built) is None


def test_the_pure_python_switch_turns_the_compiled_parser_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("METRICORE_METEOR15_PURE_PYTHON", "1")
    assert paraphrase_build.compiled_builder() is None
    monkeypatch.setenv("METRICORE_METEOR15_PURE_PYTHON", "0")
    assert paraphrase_build.compiled_builder() is paraphrase_build._built


# --------------------------------------------------------------------------- status


def test_data_status_before_and_after_prepare(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if status.data_status().meteor_dir is None:
        pytest.skip("pycocoevalcap is not installed")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    source = _gz(str(tmp_path), TABLE)
    monkeypatch.setattr(status, "table_path", lambda: source)
    monkeypatch.setattr(paraphrase, "table_path", lambda: source)
    before = status.data_status()
    assert before.pycocoevalcap == "1.2" and before.jar is not None and os.path.isfile(before.jar)
    assert before.paraphrase_table == source and before.table_bytes == os.path.getsize(source)
    assert not before.index_built and before.index_bytes == 0 and not before.ready and before.problem is None
    assert before.index_path == paraphrase.index_folder(source)
    assert before.format_version == paraphrase.FORMAT
    assert before.compiled_parser == (paraphrase_build.compiled_builder() is not None)
    assert any("not built" in line for line in before.lines())
    info = status.prepare()
    assert info.built and info.path == before.index_path
    after = status.data_status()
    assert after.index_built and after.ready and after.index_bytes == info.bytes > 0
    assert any(after.index_path in line and "MiB" in line for line in after.lines())
    assert not status.prepare().built


def test_data_status_without_pycocoevalcap(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> str:
        raise ModuleNotFoundError("METEOR 1.5 reads its language data from the installed pycocoevalcap")

    monkeypatch.setattr(status, "meteor_dir", missing)
    s = status.data_status()
    assert s.meteor_dir is None and s.index_path is None and not s.index_built and not s.ready
    assert s.problem is not None and "pycocoevalcap" in s.problem
    assert s.lines() == [f"METEOR 1.5 data: missing. {s.problem}"]


def test_data_status_without_the_paraphrase_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if status.data_status().meteor_dir is None:
        pytest.skip("pycocoevalcap is not installed")
    monkeypatch.setattr(status, "table_path", lambda: str(tmp_path / "paraphrase-en.gz"))
    s = status.data_status()
    assert s.meteor_dir is not None and s.index_path is None and not s.ready
    assert s.problem is not None and "paraphrase-en.gz not found" in s.problem
    assert s.lines()[-1] == f"problem: {s.problem}" and len(s.lines()) == 2
