"""Synonym sources for METEOR's third alignment stage (one home for thesaurus lookups).

A source maps the word the synonym stage sees (in every METEOR variant here, as in NLTK, the
*stem* of a still-unmatched hypothesis word) to a frozenset of words that count as a match
when they equal a still-unmatched *reference stem*. Lookups are cached per source.

``wordnet`` (:class:`WordNetSynonyms`)
    NLTK's rule: the lemma names of every synset ``wordnet.synsets(word)`` returns (NLTK's
    ``morphy`` included), leaving out multi-word names (those containing ``_``); case as in
    WordNet. Princeton WordNet 3.0 via :mod:`metricore.lexicon.wordnet`.
``ruwordnet`` (:class:`RuWordNetSynonyms`)
    The FusionBrain challenge's relation over RuWordNet (``ruwordnet`` package database):
    for every sense whose lemma is ``word.upper()``, the titles of its synset's hypernyms
    and the names of its derivations, lowercased. Needs the RuWordNet SQLite file (the
    ``ruwordnet`` package downloads it with ``ruwordnet download``; or pass its path).
``wiki_ru_wordnet`` (:class:`WikiRuWordNetSynonyms`)
    PyPI ``wiki-ru-wordnet`` (ships its Wiktionary-derived database): the lemmas of every
    synset containing ``word`` (true synonyms) and of those synsets' first-level hypernyms,
    lowercased. Not the challenge's resource: numbers differ from RuWordNet's.
``mapping`` (:class:`MappingSynonyms`)
    A user-supplied ``{word: [synonyms, ...]}``; keys and values are plain words, stemmed
    with the variant's stemmer before use, so ``{"кот": ["кошка"]}`` works as written.
``none`` (:class:`NoSynonyms`)
    No synonym stage.

``auto`` resolves to ``ruwordnet`` when its database is found, else ``wiki_ru_wordnet``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sqlite3
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from metricore.core.bounded import BoundedCache
from metricore.lexicon.wordnet import WordNetLocation, load_wordnet

__all__ = [
    "SynonymSource",
    "WordNetSynonyms",
    "RuWordNetSynonyms",
    "WikiRuWordNetSynonyms",
    "MappingSynonyms",
    "NoSynonyms",
    "SYNONYM_SOURCES",
    "SynonymSourceUnavailable",
    "get_synonym_source",
    "find_ruwordnet_db",
]

_EMPTY: frozenset[str] = frozenset()


class SynonymSourceUnavailable(LookupError):
    """The requested thesaurus (or its data) is not installed; the message says how."""


@runtime_checkable
class SynonymSource(Protocol):
    """What the alignment needs from a thesaurus."""

    #: short name for signatures, e.g. ``"wordnet"``
    name: str

    def version(self) -> str:
        """Data/version tag written into the result signature."""
        ...

    def lookup(self, word: str) -> frozenset[str]:
        """Words that match ``word`` in the synonym stage (may be empty)."""
        ...


class _Cached:
    """Per-word cache shared by the concrete sources, bounded for long-running processes
    (cleared past ``limit`` words or ``max_chars`` characters of words, see
    :mod:`metricore.core.bounded`; measured about 40 MB full, with WordNet's synonym sets)."""

    limit = 100_000
    max_chars = 2_000_000

    def __init__(self) -> None:
        self._cache: BoundedCache[str, frozenset[str]] = BoundedCache(self.limit, self.max_chars)
        self._lock = threading.Lock()

    def lookup(self, word: str) -> frozenset[str]:
        hit = self._cache.get(word)
        if hit is not None:
            return hit
        value = self._compute(word)
        self._cache[word] = value
        return value

    def _compute(self, word: str) -> frozenset[str]:  # pragma: no cover - abstract
        raise NotImplementedError

    def lookup_table(self) -> dict[str, frozenset[str]]:
        """The cache itself, for the hot loop (read it, fall back to :meth:`lookup`)."""
        return self._cache


class WordNetSynonyms(_Cached):
    """NLTK ``meteor_score``'s synonym rule over Princeton WordNet 3.0.

    ``location`` is a :class:`~metricore.lexicon.wordnet.WordNetLocation` or a directory; by default
    :func:`metricore.lexicon.wordnet.ensure_wordnet` finds (or provisions) it on first use.
    """

    name = "wordnet"

    def __init__(self, location: WordNetLocation | str | os.PathLike[str] | None = None) -> None:
        super().__init__()
        self._location = location
        self._reader: Any = None
        self._lines: dict[tuple[str, int], tuple[str, ...]] = {}
        self._files: dict[str, Any] = {}

    @property
    def reader(self) -> Any:
        if self._reader is None:
            self._reader = load_wordnet(self._location)
        return self._reader

    def version(self) -> str:
        return str(self.reader.metricore_version)

    def _compute(self, word: str) -> frozenset[str]:
        """``{l.name() for s in wordnet.synsets(word) for l in s.lemmas() if "_" not in l.name()}``.

        NLTK's own ``morphy`` and lemma index pick the synsets; only their lemma names are
        read from the data files (NLTK would build whole ``Synset`` objects: pointers, gloss,
        frames). A parity test compares the sets with ``nltk.corpus.wordnet``.
        """
        reader = self.reader
        if not os.path.isdir(str(reader.root)):  # zipped WordNet: let NLTK build the synsets
            return frozenset(
                lemma.name()
                for s in reader.synsets(word)
                for lemma in s.lemmas()
                if lemma.name().find("_") < 0
            )
        index = reader._lemma_pos_offset_map
        morphy = reader._morphy
        form0 = word.lower()
        names: set[str] = set()
        for pos in ("n", "v", "a", "r"):  # nltk.corpus.reader.wordnet.POS_LIST
            for form in morphy(form0, pos, True):
                for offset in index[form].get(pos, ()):
                    names.update(self._names_at(pos, offset))
        return frozenset(names)

    def _names_at(self, pos: str, offset: int) -> tuple[str, ...]:
        key = (pos, offset)
        hit = self._lines.get(key)
        if hit is not None:
            return hit
        fh = self._files.get(pos)
        if fh is None:
            suffix = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}[pos]
            fh = open(os.path.join(str(self.reader.root), f"data.{suffix}"), "rb")  # noqa: SIM115
            self._files[pos] = fh
        with self._lock:
            fh.seek(offset)
            line = fh.readline().decode("utf-8")
        if line[:8] != f"{offset:08d}":
            raise LookupError(f"WordNet data.{pos}: no synset at offset {offset}")
        fields = line.strip().split("|", 1)[0].split()
        n = int(fields[3], 16)
        out = []
        for name in fields[4 : 4 + 2 * n : 2]:
            # NLTK strips a trailing syntactic marker such as "(a)", "(p)", "(ip)"
            if name.endswith(")"):
                cut = name.rfind("(")
                if cut >= 0 and "(" not in name[cut + 1 : -1] and ")" not in name[cut + 1 : -1]:
                    name = name[:cut]
            if name.find("_") < 0:
                out.append(name)
        names = tuple(out)
        self._lines[key] = names
        return names


def find_ruwordnet_db() -> Path | None:
    """The database of an installed ``ruwordnet`` package (``ruwordnet download``), if any.

    The package is not imported (it pins ``sqlalchemy<2``); its ``static`` folder is read.
    """
    spec = importlib.util.find_spec("ruwordnet")
    if spec is None or not spec.origin:
        return None
    static = Path(spec.origin).parent / "static"
    for name in ("ruwordnet-2021.db", "ruwordnet.db"):
        if (static / name).is_file():
            return static / name
    return None


def _connect_ro(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)


class RuWordNetSynonyms(_Cached):
    """The challenge's RuWordNet relation: hypernym titles and derivation names of the
    senses whose lemma is ``word.upper().strip()`` (``RuWordNet.get_senses``)."""

    name = "ruwordnet"

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        super().__init__()
        db = Path(path) if path is not None else find_ruwordnet_db()
        if db is None or not db.is_file():
            raise SynonymSourceUnavailable(
                "RuWordNet database not found"
                + (f" at {db}" if db is not None else "")
                + ". Install it with `pip install ruwordnet && ruwordnet download` (needs network access "
                "to the RuWordNet release files), or pass the path of a RuWordNet SQLite file; "
                "or use synonyms='wiki_ru_wordnet' (`pip install wiki-ru-wordnet`, data included)."
            )
        self.path = db
        self._con = _connect_ro(db)
        try:
            self._con.execute("SELECT id, name, lemma, synset_id FROM sense LIMIT 1").fetchall()
            self._con.execute("SELECT id, title FROM synset LIMIT 1").fetchall()
            self._con.execute("SELECT hyponym_id, hypernym_id FROM hypernym_relation LIMIT 1").fetchall()
            self._con.execute("SELECT source_id, derivative_id FROM derivation_relation LIMIT 1").fetchall()
        except sqlite3.DatabaseError as err:
            raise SynonymSourceUnavailable(f"{db} is not a RuWordNet database: {err}") from None

    def version(self) -> str:
        stat = self.path.stat()
        return f"{self.path.name}@{stat.st_size}"

    def _compute(self, word: str) -> frozenset[str]:
        key = word.upper().strip()
        with self._lock:
            senses = self._con.execute("SELECT id, synset_id FROM sense WHERE lemma = ?", (key,)).fetchall()
            names: set[str] = set()
            for sense_id, synset_id in senses:
                for (title,) in self._con.execute(
                    "SELECT s.title FROM hypernym_relation h JOIN synset s ON s.id = h.hypernym_id "
                    "WHERE h.hyponym_id = ?",
                    (synset_id,),
                ):
                    if title is not None:
                        names.add(title.lower())
                for (name,) in self._con.execute(
                    "SELECT d.name FROM derivation_relation r JOIN sense d ON d.id = r.derivative_id "
                    "WHERE r.source_id = ?",
                    (sense_id,),
                ):
                    if name is not None:
                        names.add(name.lower())
        if senses:
            names.add(word)
        return frozenset(names)


def _wiki_db_path() -> Path | None:
    spec = importlib.util.find_spec("wiki_ru_wordnet")
    if spec is None or not spec.origin:
        return None
    db = Path(spec.origin).parent / "database" / "wikiwordnet.db"
    return db if db.is_file() else None


class WikiRuWordNetSynonyms(_Cached):
    """Synonyms and first-level hypernyms from PyPI ``wiki-ru-wordnet`` (data included).

    The database is read directly (SQLite, read-only) into two small indexes on first use.
    """

    name = "wiki_ru_wordnet"

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        super().__init__()
        db = Path(path) if path is not None else _wiki_db_path()
        if db is None or not db.is_file():
            raise SynonymSourceUnavailable(
                "wiki-ru-wordnet is not installed: `pip install wiki-ru-wordnet==1.0.3` "
                "(its database ships in the package), or pass the path of wikiwordnet.db"
            )
        self.path = db
        self._sids_by_lemma: dict[str, list[int]] | None = None
        self._lemmas_by_sid: dict[int, list[str]] = {}
        self._hyper: dict[int, list[int]] = {}

    def version(self) -> str:
        import importlib.metadata  # here: ~30 ms to import, needed only for this version string

        try:
            return "wiki-ru-wordnet-" + importlib.metadata.version("wiki-ru-wordnet")
        except importlib.metadata.PackageNotFoundError:
            return f"{self.path.name}@{self.path.stat().st_size}"

    def _load(self) -> dict[str, list[int]]:
        with self._lock:
            if self._sids_by_lemma is None:
                con = _connect_ro(self.path)
                try:
                    by_lemma: dict[str, list[int]] = defaultdict(list)
                    by_sid: dict[int, list[str]] = defaultdict(list)
                    for sid, lemma in con.execute("SELECT DISTINCT synset_id, lemma FROM synsets"):
                        by_lemma[lemma].append(sid)
                        by_sid[sid].append(lemma)
                    hyper: dict[int, list[int]] = defaultdict(list)
                    for sid, hsid in con.execute("SELECT sid, hypersid FROM hypernyms"):
                        hyper[sid].append(hsid)
                except sqlite3.DatabaseError as err:
                    raise SynonymSourceUnavailable(
                        f"{self.path} is not a wiki-ru-wordnet database: {err}"
                    ) from None
                finally:
                    con.close()
                self._lemmas_by_sid = dict(by_sid)
                self._hyper = dict(hyper)
                self._sids_by_lemma = dict(by_lemma)
        return self._sids_by_lemma

    def _compute(self, word: str) -> frozenset[str]:
        sids = self._load().get(word)
        if not sids:
            return _EMPTY
        names: set[str] = set()
        for sid in sids:
            names.update(w.lower() for w in self._lemmas_by_sid.get(sid, ()))
            for hsid in self._hyper.get(sid, ()):
                names.update(w.lower() for w in self._lemmas_by_sid.get(hsid, ()))
        return frozenset(names)


class MappingSynonyms:
    """A user-supplied thesaurus ``{word: iterable of synonyms}`` (all str).

    :meth:`bind` returns the stem-level table the alignment uses: keys and values are passed
    through the variant's stemmer (lowercased first), entries whose keys share a stem merge.
    """

    name = "mapping"

    def __init__(self, mapping: Mapping[str, Iterable[str]]) -> None:
        if not isinstance(mapping, Mapping):
            raise TypeError(f"meteor: `synonyms` mapping must be a Mapping, got {type(mapping).__name__}")
        table: dict[str, tuple[str, ...]] = {}
        for key, values in mapping.items():
            if not isinstance(key, str):
                raise TypeError(
                    f"meteor: `synonyms` keys must be str, got {type(key).__name__} ({key!r:.40})"
                )
            if isinstance(values, str) or not isinstance(values, Iterable):
                raise TypeError(
                    f"meteor: `synonyms[{key!r}]` must be a list of str, got {type(values).__name__}"
                )
            vals = tuple(values)
            for v in vals:
                if not isinstance(v, str):
                    raise TypeError(f"meteor: `synonyms[{key!r}]` holds a {type(v).__name__}; expected str")
            table[key] = vals
        self._table = table
        digest = hashlib.sha1(
            json.dumps(sorted((k, sorted(v)) for k, v in table.items()), ensure_ascii=False).encode()
        )
        self._digest = digest.hexdigest()[:10]
        self._bound: dict[int, dict[str, frozenset[str]]] = {}

    def version(self) -> str:
        return f"sha1-{self._digest}"

    def bind(self, stem: Callable[[str], str]) -> dict[str, frozenset[str]]:
        out: dict[str, set[str]] = defaultdict(set)
        for key, values in self._table.items():
            out[stem(key.lower())].update(stem(v.lower()) for v in values)
        return {k: frozenset(v) for k, v in out.items()}

    def lookup(self, word: str) -> frozenset[str]:
        return frozenset(self._table.get(word, ()))


class NoSynonyms:
    """No synonym stage (exact and stem matches only)."""

    name = "none"

    def version(self) -> str:
        return "-"

    def lookup(self, word: str) -> frozenset[str]:
        return _EMPTY


SYNONYM_SOURCES = ("wordnet", "ruwordnet", "wiki_ru_wordnet", "auto", "none")
_SHARED: dict[str, Any] = {}
_SHARED_LOCK = threading.Lock()


def get_synonym_source(spec: Any) -> Any:
    """A synonym source from a name (shared, cached instances), a mapping, or an object with
    ``name``, ``version()`` and ``lookup(word)``."""
    if isinstance(spec, str):
        if spec not in SYNONYM_SOURCES:
            raise ValueError(
                f"meteor: unknown synonyms {spec!r}; allowed: {', '.join(repr(s) for s in SYNONYM_SOURCES)}, "
                "a dict {word: [synonyms]} or a SynonymSource object"
            )
        if spec == "auto":
            spec = "ruwordnet" if find_ruwordnet_db() is not None else "wiki_ru_wordnet"
        with _SHARED_LOCK:
            source = _SHARED.get(spec)
            if source is None:
                factory = {
                    "wordnet": WordNetSynonyms,
                    "ruwordnet": RuWordNetSynonyms,
                    "wiki_ru_wordnet": WikiRuWordNetSynonyms,
                    "none": NoSynonyms,
                }[spec]
                source = factory()
                _SHARED[spec] = source
        return source
    if isinstance(spec, Mapping):
        return MappingSynonyms(spec)
    if isinstance(spec, SynonymSource):
        return spec
    raise TypeError(
        f"meteor: `synonyms` must be one of {', '.join(repr(s) for s in SYNONYM_SOURCES)}, a dict "
        f"{{word: [synonyms]}} or a SynonymSource object, got {type(spec).__name__}"
    )
