"""Princeton WordNet 3.0 for METEOR, offline: find it, provision it, load it fast.

NLTK reads WordNet from ``<data dir>/corpora/wordnet`` where ``<data dir>`` is one of
``nltk.data.path``. This module finds such a directory without environment variables and,
when there is none, builds one from the Debian packages ``wordnet-base`` and
``wordnet-sense-index`` (``/usr/share/wordnet``):

* the Debian files are **copied** (NLTK 3.10 refuses symlinked and hard-linked corpus
  files), and
* the ``lexnames`` file NLTK also needs, which Debian does not ship, is written from the
  fixed 45-line table of the ``lexnames(5WN)`` manual page embedded below.

The copy goes to ``<sys.prefix>/share/nltk_data/corpora/wordnet`` (on NLTK's default search
path) or, when that is not writable, to a user cache directory, which is then added to
``nltk.data.path`` in-process. ``python -m metricore.lexicon.wordnet --install`` does this once at
set-up time (``scripts/setup`` runs it); the metric does it lazily too, still offline. Nothing
here calls ``nltk.download``.

When neither an NLTK WordNet nor the Debian files exist, :class:`WordNetNotFoundError` says
how to install one.

:func:`load_wordnet` returns NLTK's own ``WordNetCorpusReader`` (so every synset, lemma and
``morphy`` result is NLTK's), built about 10x faster than ``nltk.corpus.wordnet``: the index
files are read with plain file I/O instead of NLTK's seekable stream reader, and the mapping
of sense keys to "WordNet 3.0" used only by the multilingual (OMW) functions is skipped.
English lookups (``synsets``, ``lemmas``, ``morphy``) are unaffected; a parity test compares
them with ``nltk.corpus.wordnet``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "DEBIAN_WORDNET_DIR",
    "LEXNAMES",
    "REQUIRED_FILES",
    "WordNetLocation",
    "WordNetNotFoundError",
    "default_search_paths",
    "find_wordnet",
    "install_wordnet",
    "ensure_wordnet",
    "load_wordnet",
    "wordnet_load_seconds",
]

#: Where Debian's ``wordnet-base`` and ``wordnet-sense-index`` put the database files.
DEBIAN_WORDNET_DIR = Path("/usr/share/wordnet")

#: The files NLTK's WordNet reader opens (``WordNetCorpusReader._FILES``).
REQUIRED_FILES = (
    "cntlist.rev",
    "lexnames",
    "index.sense",
    "index.adj",
    "index.adv",
    "index.noun",
    "index.verb",
    "data.adj",
    "data.adv",
    "data.noun",
    "data.verb",
    "adj.exc",
    "adv.exc",
    "noun.exc",
    "verb.exc",
)

#: ``lexnames(5WN)``: file number, lexicographer file name, syntactic category
#: (1 noun, 2 verb, 3 adjective, 4 adverb). Fixed since WordNet 1.5.
LEXNAMES: tuple[tuple[int, str, int], ...] = (
    (0, "adj.all", 3),
    (1, "adj.pert", 3),
    (2, "adv.all", 4),
    (3, "noun.Tops", 1),
    (4, "noun.act", 1),
    (5, "noun.animal", 1),
    (6, "noun.artifact", 1),
    (7, "noun.attribute", 1),
    (8, "noun.body", 1),
    (9, "noun.cognition", 1),
    (10, "noun.communication", 1),
    (11, "noun.event", 1),
    (12, "noun.feeling", 1),
    (13, "noun.food", 1),
    (14, "noun.group", 1),
    (15, "noun.location", 1),
    (16, "noun.motive", 1),
    (17, "noun.object", 1),
    (18, "noun.person", 1),
    (19, "noun.phenomenon", 1),
    (20, "noun.plant", 1),
    (21, "noun.possession", 1),
    (22, "noun.process", 1),
    (23, "noun.quantity", 1),
    (24, "noun.relation", 1),
    (25, "noun.shape", 1),
    (26, "noun.state", 1),
    (27, "noun.substance", 1),
    (28, "noun.time", 1),
    (29, "verb.body", 2),
    (30, "verb.change", 2),
    (31, "verb.cognition", 2),
    (32, "verb.communication", 2),
    (33, "verb.competition", 2),
    (34, "verb.consumption", 2),
    (35, "verb.contact", 2),
    (36, "verb.creation", 2),
    (37, "verb.emotion", 2),
    (38, "verb.motion", 2),
    (39, "verb.perception", 2),
    (40, "verb.possession", 2),
    (41, "verb.social", 2),
    (42, "verb.stative", 2),
    (43, "verb.weather", 2),
    (44, "adj.ppl", 3),
)

#: Written beside the copied files so the signature can say where the data came from.
PROVENANCE_FILE = "METRICORE_SOURCE"

INSTALL_HELP = """\
WordNet 3.0 was not found. METEOR's synonym stage needs it. Install it with either:
  * Debian/Ubuntu (offline-friendly, what this project's scripts/setup does):
        apt-get install -y wordnet-base wordnet-sense-index
        python -m metricore.lexicon.wordnet --install
  * NLTK's downloader (needs access to NLTK's data server):
        python -c "import nltk; nltk.download('wordnet')"
Searched: {searched}"""


class WordNetNotFoundError(LookupError):
    """No usable WordNet: the message says how to install one."""


@dataclass(frozen=True)
class WordNetLocation:
    """A WordNet directory NLTK can read.

    ``data_root`` is the NLTK data directory (on ``nltk.data.path``), ``corpus_dir`` is
    ``data_root/corpora/wordnet``, ``source`` says where the files came from (``debian``
    when this module copied them, ``nltk_data`` otherwise).
    """

    data_root: Path
    corpus_dir: Path
    source: str


def _user_cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "metricore" / "nltk_data"


def _prefix_root() -> Path:
    return Path(sys.prefix) / "share" / "nltk_data"


def default_search_paths() -> list[Path]:
    """NLTK data directories to look in, in order: this environment's, the user cache used
    by :func:`install_wordnet`, then NLTK's own ``nltk.data.path``."""
    paths = [_prefix_root(), _user_cache_root()]
    try:
        import nltk.data

        paths.extend(
            Path(os.path.expanduser(str(p))) for p in nltk.data.path if isinstance(p, (str, os.PathLike))
        )
    except ImportError:  # pragma: no cover - nltk is a dependency of the METEOR metric
        pass
    seen: set[Path] = set()
    out = []
    for p in paths:
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out


def _is_complete(corpus_dir: Path) -> bool:
    return all((corpus_dir / name).is_file() for name in REQUIRED_FILES)


def find_wordnet(search_paths: Iterable[str | os.PathLike[str]] | None = None) -> WordNetLocation | None:
    """The first NLTK data directory holding a complete ``corpora/wordnet``, or ``None``."""
    roots = default_search_paths() if search_paths is None else [Path(p) for p in search_paths]
    for root in roots:
        corpus = root / "corpora" / "wordnet"
        if corpus.is_dir() and _is_complete(corpus):
            marker = corpus / PROVENANCE_FILE
            source = marker.read_text(encoding="utf-8").strip() if marker.is_file() else "nltk_data"
            return WordNetLocation(root, corpus, source or "nltk_data")
        archive = root / "corpora" / "wordnet.zip"  # what nltk.download('wordnet') may leave
        if archive.is_file():
            return WordNetLocation(root, archive, "nltk_data")
    return None


def _writable_root(candidates: Sequence[Path]) -> Path | None:
    for root in candidates:
        probe = root
        while not probe.exists() and probe != probe.parent:
            probe = probe.parent
        if os.access(probe, os.W_OK):
            return root
    return None


def install_wordnet(
    source_dir: str | os.PathLike[str] = DEBIAN_WORDNET_DIR,
    target_root: str | os.PathLike[str] | None = None,
) -> WordNetLocation:
    """Copy the Debian WordNet files and write ``lexnames`` into an NLTK data directory.

    ``target_root`` defaults to ``<sys.prefix>/share/nltk_data`` or, when that is not
    writable, the user cache directory. The copy is made in a temporary directory and
    renamed into place, so a concurrent reader never sees half a corpus. Files are copied,
    not linked (NLTK refuses links).
    """
    src = Path(source_dir)
    missing = [n for n in REQUIRED_FILES if n != "lexnames" and not (src / n).is_file()]
    if missing:
        raise WordNetNotFoundError(
            f"{src} lacks {', '.join(missing)}.\n" + INSTALL_HELP.format(searched=str(src))
        )
    if target_root is None:
        root = _writable_root([_prefix_root(), _user_cache_root()])
        if root is None:
            raise PermissionError(
                f"neither {_prefix_root()} nor {_user_cache_root()} is writable; pass target_root"
            )
    else:
        root = Path(target_root)
    corpora = root / "corpora"
    corpora.mkdir(parents=True, exist_ok=True)
    final = corpora / "wordnet"
    if final.is_dir() and _is_complete(final):
        return find_wordnet([root]) or WordNetLocation(root, final, "debian")
    staging = Path(tempfile.mkdtemp(prefix=".wordnet-", dir=corpora))
    try:
        for name in REQUIRED_FILES:
            if name == "lexnames":
                continue
            shutil.copyfile(src / name, staging / name)  # a real copy: NLTK refuses links
        (staging / "lexnames").write_text(
            "".join(f"{num:02d}\t{name}\t{cat}\n" for num, name, cat in LEXNAMES), encoding="utf-8"
        )
        (staging / PROVENANCE_FILE).write_text("debian\n", encoding="utf-8")
        os.chmod(staging, 0o755)
        if final.exists():  # incomplete leftovers of an interrupted copy
            shutil.rmtree(final)
        try:
            os.replace(staging, final)
        except OSError:
            if not (final.is_dir() and _is_complete(final)):  # lost a race to a complete copy: fine
                raise
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return WordNetLocation(root, final, "debian")


def ensure_wordnet(
    search_paths: Iterable[str | os.PathLike[str]] | None = None,
    debian_dir: str | os.PathLike[str] | None = DEBIAN_WORDNET_DIR,
    target_root: str | os.PathLike[str] | None = None,
) -> WordNetLocation:
    """Find WordNet; else provision it from the Debian files; else raise
    :class:`WordNetNotFoundError` with installation instructions."""
    roots = default_search_paths() if search_paths is None else [Path(p) for p in search_paths]
    found = find_wordnet(roots)
    if found is not None:
        return found
    if debian_dir is not None and Path(debian_dir).is_dir() and (Path(debian_dir) / "data.noun").is_file():
        if target_root is None and search_paths is not None:
            target_root = roots[0] if roots else None
        return install_wordnet(debian_dir, target_root)
    searched = [str(r / "corpora" / "wordnet") for r in roots]
    if debian_dir is not None:
        searched.append(str(debian_dir))
    raise WordNetNotFoundError(INSTALL_HELP.format(searched=", ".join(searched) or "(nothing)"))


# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------

_LOCK = threading.Lock()
_READERS: dict[Path, Any] = {}
_LOAD_SECONDS: dict[Path, float] = {}


def _reader_class() -> type:
    from nltk.corpus.reader.wordnet import ADJ, ADJ_SAT, WordNetCorpusReader, WordNetError

    class FastWordNetReader(WordNetCorpusReader):
        """NLTK's reader with a faster start-up and identical English lookups."""

        def map_wn(self, version: str = "wordnet") -> None:
            # Used only to map OMW (multilingual) data onto this WordNet version; reading
            # index.sense twice for it takes most of NLTK's start-up time.
            return None

        def _plain_lines(self, name: str) -> Iterable[str]:
            if not os.path.isdir(str(self.root)):  # a zip archive: NLTK's own stream reader
                with self.open(name) as fh:
                    yield from fh
                return
            with open(os.path.join(str(self.root), name), encoding=self._ENCODING) as fh:
                yield from fh

        def _scan_satellites(self) -> None:
            offsets = set()
            for line in self._plain_lines("data.adj"):
                if not line.strip() or line.startswith(" "):
                    continue
                fields = line.strip().split()
                if len(fields) >= 3 and fields[2] == "s":
                    offsets.add(int(fields[0]))
            self.satellite_offsets = offsets

        def _load_lemma_pos_offset_map(self) -> None:
            satellites = self.satellite_offsets
            table = self._lemma_pos_offset_map
            for suffix in self._FILEMAP.values():
                name = f"index.{suffix}"
                for i, line in enumerate(self._plain_lines(name)):
                    if line.startswith(" "):
                        continue
                    fields = line.split()
                    try:
                        lemma, pos = fields[0], fields[1]
                        n_synsets = int(fields[2])
                        if n_synsets <= 0:
                            raise ValueError("no synsets")
                        n_pointers = int(fields[3])
                        k = 4 + n_pointers
                        if int(fields[k]) != n_synsets:
                            raise ValueError("sense count differs from synset count")
                        offsets = [int(x) for x in fields[k + 2 : k + 2 + n_synsets]]
                        if len(offsets) != n_synsets:
                            raise ValueError("truncated line")
                    except (IndexError, ValueError) as err:
                        raise WordNetError(f"file {name}, line {i + 1}: {err}") from err
                    table[lemma][pos] = offsets
                    if pos == ADJ:
                        table[lemma][ADJ_SAT] = [o for o in offsets if o in satellites]

    return FastWordNetReader


def load_wordnet(location: WordNetLocation | str | os.PathLike[str] | None = None) -> Any:
    """NLTK ``WordNetCorpusReader`` for ``location`` (default: :func:`ensure_wordnet`).

    ``location`` may be a :class:`WordNetLocation`, a ``corpora/wordnet`` directory or an
    NLTK data directory. Readers are cached per directory for the life of the process.
    """
    if location is None:
        loc = ensure_wordnet()
    elif isinstance(location, WordNetLocation):
        loc = location
    else:
        path = Path(location)
        corpus = (
            path if (path / "data.noun").exists() or path.name == "wordnet" else path / "corpora" / "wordnet"
        )
        if not _is_complete(corpus):
            raise WordNetNotFoundError(INSTALL_HELP.format(searched=str(corpus)))
        found = find_wordnet([corpus.parent.parent])
        loc = found or WordNetLocation(corpus.parent.parent, corpus, "nltk_data")
    with _LOCK:
        reader = _READERS.get(loc.corpus_dir)
        if reader is not None:
            return reader
        import nltk.data

        # NLTK 3.10 only opens corpus files under a directory of nltk.data.path.
        known = {
            os.path.realpath(os.path.expanduser(str(p)))
            for p in nltk.data.path
            if isinstance(p, (str, os.PathLike))
        }
        if os.path.realpath(loc.data_root) not in known:
            nltk.data.path.append(str(loc.data_root))
        start = time.perf_counter()
        root: Any = str(loc.corpus_dir)
        if loc.corpus_dir.suffix == ".zip":
            root = nltk.data.find("corpora/wordnet.zip/wordnet/", paths=[str(loc.data_root)])
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="The multilingual functions are not available")
            reader = _reader_class()(root, None)
        _LOAD_SECONDS[loc.corpus_dir] = time.perf_counter() - start
        reader.metricore_source = loc.source
        reader.metricore_version = f"{reader.get_version()}+{loc.source}"
        _READERS[loc.corpus_dir] = reader
        return reader


def wordnet_load_seconds() -> dict[str, float]:
    """Seconds each cached reader took to build (for benchmarks)."""
    return {str(k): v for k, v in _LOAD_SECONDS.items()}


def _clear_cache() -> None:
    with _LOCK:
        _READERS.clear()
        _LOAD_SECONDS.clear()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m metricore.lexicon.wordnet",
        description="Find or provision Princeton WordNet 3.0 for NLTK, offline (from Debian's wordnet-base).",
    )
    parser.add_argument(
        "--install",
        action="store_true",
        help="copy /usr/share/wordnet into an NLTK data dir if none has WordNet",
    )
    parser.add_argument(
        "--target",
        help="NLTK data dir to install into (default: <sys.prefix>/share/nltk_data or the user cache)",
    )
    parser.add_argument("--check", action="store_true", help="also load it with NLTK and print the version")
    args = parser.parse_args(argv)
    try:
        if args.install:
            loc = (
                ensure_wordnet(target_root=args.target)
                if args.target is None
                else install_wordnet(target_root=args.target)
            )
        else:
            found = find_wordnet()
            if found is None:
                raise WordNetNotFoundError(
                    INSTALL_HELP.format(searched=", ".join(str(p) for p in default_search_paths()))
                )
            loc = found
    except WordNetNotFoundError as err:
        print(f"metricore.lexicon.wordnet: {err}", file=sys.stderr)
        return 1
    print(f"WordNet: {loc.corpus_dir} (source: {loc.source})")
    if args.check:
        reader = load_wordnet(loc)
        print(
            f"loaded WordNet {reader.get_version()} with NLTK in {wordnet_load_seconds()[str(loc.corpus_dir)]:.2f} s"
        )
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
