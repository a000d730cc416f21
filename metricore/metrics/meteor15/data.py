"""Language data of METEOR 1.5, read from the files the installed ``pycocoevalcap`` 1.2 ships.

The jar ``pycocoevalcap/meteor/meteor-1.5.jar`` is a zip; its resources hold the English
function words (``function/english.words``), the WordNet synonym tables
(``synonym/english.{synsets,exceptions}``) and the Moses non-breaking prefixes
(``nonbreaking/english.prefixes``). Nothing is downloaded. The paraphrase table
(``meteor/data/paraphrase-en.gz``) is handled by :mod:`.paraphrase`.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import zipfile
from dataclasses import dataclass

__all__ = ["MeteorData", "cache_dir", "jar_path", "load_data", "meteor_dir", "synset_ids"]

_INSTALL_HINT = (
    "METEOR 1.5 reads its language data from the installed pycocoevalcap 1.2 package; "
    "install it with: pip install 'metricore[coco]'"
)


def meteor_dir() -> str:
    """The ``pycocoevalcap/meteor`` folder, or a clear error naming the extra to install."""
    spec = importlib.util.find_spec("pycocoevalcap")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(_INSTALL_HINT)
    folder = os.path.join(next(iter(spec.submodule_search_locations)), "meteor")
    if not os.path.isfile(os.path.join(folder, "meteor-1.5.jar")):
        raise FileNotFoundError(f"{folder}/meteor-1.5.jar not found. {_INSTALL_HINT}")
    return folder


def jar_path() -> str:
    return os.path.join(meteor_dir(), "meteor-1.5.jar")


def cache_dir() -> str:
    """``$XDG_CACHE_HOME/metricore`` (default ``~/.cache/metricore``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "metricore")


@dataclass(frozen=True)
class MeteorData:
    """The jar's English resources, parsed as the jar's loaders parse them."""

    function_words: frozenset[str]
    # word -> its line of synset ids, parsed when a word is met (:func:`synset_ids`): parsed
    # up front, 150,000 frozensets cost 70 MB and slow every full garbage collection
    synsets: dict[str, str]
    # inflected form -> base forms, in file order (the jar appends every base it meets)
    exceptions: dict[str, tuple[str, ...]]
    # prefix -> True when the prefix is "#NUMERIC_ONLY#"
    nonbreaking: dict[str, bool]


def _lines(jar: zipfile.ZipFile, name: str) -> list[str]:
    # Java's BufferedReader.readLine splits on \n, \r and \r\n
    return jar.read(name).decode("utf-8").splitlines()


def _java_tokens(line: str) -> list[str]:
    # java.util.StringTokenizer's default delimiters
    return line.replace("\t", " ").replace("\n", " ").replace("\r", " ").replace("\f", " ").split(" ")


def _split(line: str) -> list[str]:
    return [t for t in _java_tokens(line) if t]


def synset_ids(line: str) -> frozenset[int]:
    """The ids of a synset line. Id lines hold only digits and spaces (``int`` refuses
    anything else), so ``str.split`` splits them as ``StringTokenizer`` does."""
    return frozenset(map(int, line.split()))


@functools.lru_cache(maxsize=1)
def load_data() -> MeteorData:
    with zipfile.ZipFile(jar_path()) as jar:
        function_words = frozenset(_lines(jar, "function/english.words"))
        exceptions: dict[str, list[str]] = {}
        exc = _lines(jar, "synonym/english.exceptions")
        for base, forms in zip(exc[0::2], exc[1::2]):
            for form in _split(forms):
                exceptions.setdefault(form, []).append(base)
        syn = _lines(jar, "synonym/english.synsets")
        # a word listed twice keeps its last line (Hashtable.put)
        synsets = dict(zip(syn[0::2], syn[1::2]))
        nonbreaking: dict[str, bool] = {}
        for line in _lines(jar, "nonbreaking/english.prefixes"):
            toks = _split(line)
            if not toks or toks[0].startswith("#"):
                continue
            nonbreaking[toks[0]] = len(toks) > 1 and toks[1] == "#NUMERIC_ONLY#"
    return MeteorData(
        function_words=function_words,
        synsets=synsets,
        exceptions={k: tuple(v) for k, v in exceptions.items()},
        nonbreaking=nonbreaking,
    )
