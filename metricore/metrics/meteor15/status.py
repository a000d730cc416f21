"""The state of METEOR 1.5's data on this machine, and its preparation ahead of time.

METEOR 1.5 reads the resources of the installed pycocoevalcap 1.2 (the jar's English word
lists and WordNet tables, :mod:`.data`) and a paraphrase index built from its
``paraphrase-en.gz`` on first use and cached (:mod:`.paraphrase`). :func:`data_status` says
what is there (for ``metricore doctor``); :func:`prepare` builds what is missing (for
``metricore prepare``, an image build or a service's start-up), so that no request pays for
it.
"""

from __future__ import annotations

import importlib.metadata
import os
from dataclasses import dataclass

from metricore.metrics.meteor15.data import jar_path, load_data, meteor_dir
from metricore.metrics.meteor15.paraphrase import (
    FORMAT,
    IndexInfo,
    compiled_builder,
    folder_bytes,
    index_folder,
    prepare_index,
    table_path,
)

__all__ = ["DataStatus", "data_status", "prepare"]


@dataclass(frozen=True)
class DataStatus:
    """What METEOR 1.5 finds on this machine; ``problem`` says what is missing, with the fix."""

    pycocoevalcap: str | None  # its version, None when it is not installed
    meteor_dir: str | None  # pycocoevalcap/meteor
    jar: str | None  # meteor-1.5.jar (its resources are read from it; Java is not needed)
    paraphrase_table: str | None  # meteor/data/paraphrase-en.gz
    table_bytes: int | None
    index_path: str | None  # the cached index folder (where it is, or will be, built)
    index_built: bool
    index_bytes: int  # on disk, 0 when not built
    format_version: int  # of the index (folders of other formats are removed when one is built)
    compiled_parser: bool  # whether the index would be built by the compiled parser
    problem: str | None

    @property
    def ready(self) -> bool:
        """Whether METEOR 1.5 runs without building anything first."""
        return self.problem is None and self.index_built

    def lines(self) -> list[str]:
        """The status as lines of text, for a terminal."""
        if self.meteor_dir is None:
            return [f"METEOR 1.5 data: missing. {self.problem}"]
        out = [f"pycocoevalcap {self.pycocoevalcap or '(version unknown)'}: {self.meteor_dir}"]
        if self.table_bytes is not None:
            out.append(f"paraphrase table: {self.paraphrase_table} ({self.table_bytes / 2**20:.1f} MiB)")
        if self.index_built:
            out.append(
                f"paraphrase index (format {self.format_version}): {self.index_path} "
                f"({self.index_bytes / 2**20:.1f} MiB)"
            )
        elif self.index_path is not None:
            parser = "compiled" if self.compiled_parser else "Python (no compiled parser: slower)"
            out.append(
                f"paraphrase index (format {self.format_version}): not built; the first METEOR 1.5 "
                f"call (or `metricore prepare`) builds it into {self.index_path} with the {parser} parser"
            )
        if self.problem is not None:
            out.append(f"problem: {self.problem}")
        return out


def _version() -> str | None:
    try:
        return importlib.metadata.version("pycocoevalcap")
    except importlib.metadata.PackageNotFoundError:
        return None


def data_status() -> DataStatus:
    """Where METEOR 1.5's data is and whether its paraphrase index is built: a few file system
    calls and a read of 136 KiB of the paraphrase table, nothing built or loaded."""
    compiled = compiled_builder() is not None
    try:
        folder = meteor_dir()
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        return DataStatus(None, None, None, None, None, None, False, 0, FORMAT, compiled, str(exc))
    version, jar, table = _version(), jar_path(), table_path()
    if not os.path.isfile(table):
        problem = f"{table} not found: reinstall pycocoevalcap 1.2 (pip install 'metricore[coco]')"
        return DataStatus(version, folder, jar, table, None, None, False, 0, FORMAT, compiled, problem)
    index = index_folder(table)
    built = os.path.isdir(index)
    return DataStatus(
        pycocoevalcap=version,
        meteor_dir=folder,
        jar=jar,
        paraphrase_table=table,
        table_bytes=os.path.getsize(table),
        index_path=index,
        index_built=built,
        index_bytes=folder_bytes(index) if built else 0,
        format_version=FORMAT,
        compiled_parser=compiled,
        problem=None,
    )


def prepare() -> IndexInfo:
    """Make METEOR 1.5's data ready: read the jar's resources (a check that they are there),
    and build the paraphrase index into the cache unless it is there (about 4 s and 0.3 GB
    with the compiled parser, 18 s and 0.7 GB without; once per machine and pycocoevalcap
    data). Returns where the index is, its size
    and whether it was built now (:meth:`.IndexInfo.summary` is the line to print). Raises
    ``ModuleNotFoundError`` without pycocoevalcap, ``OSError`` when the cache cannot be
    written."""
    load_data()
    return prepare_index()
