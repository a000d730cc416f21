"""Writing files so that a reader never sees half of one and an error never destroys one."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

__all__ = ["write_atomic"]


def write_atomic(path: str | os.PathLike[str], chunks: Iterable[str] | str) -> None:
    """Write ``chunks`` (text, or an iterable of text) as UTF-8 to ``path`` all at once or not
    at all: they go to a temporary file in the same directory, which replaces ``path``
    (``os.replace``, atomic on one file system) only once everything was written. Any error (an
    unencodable lone surrogate, a full disk) leaves an existing ``path`` as it was and no
    temporary file behind; a concurrent reader sees the old file or the new one, never a part."""
    target = Path(path)
    handle = tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", dir=target.parent, prefix=f".{target.name}.", suffix=".tmp", delete=False
    )
    try:
        with handle:
            for chunk in [chunks] if isinstance(chunks, str) else chunks:
                handle.write(chunk)
        os.replace(handle.name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(handle.name)
        raise
