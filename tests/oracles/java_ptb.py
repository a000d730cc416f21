"""The Java PTB tokenizer exactly as ``pycocoevalcap`` runs it, but returning its raw output.

``pycocoevalcap.tokenizer.ptbtokenizer.PTBTokenizer`` joins all captions of a call with
``"\\n"`` (after replacing ``"\\n"`` inside a caption by a space), writes them to one file, runs
``java -cp stanford-corenlp-3.4.1.jar edu.stanford.nlp.process.PTBTokenizer -preserveLines
-lowerCase <file>`` and splits the output on ``"\\n"``. :func:`java_lines` does the same and
returns those lines, before the punctuation filter, so tests can compare token by token.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

__all__ = ["unavailable_reason", "java_lines", "JAR"]


def _jar() -> Path | None:
    try:
        import pycocoevalcap.tokenizer.ptbtokenizer as ptb
    except ImportError:
        return None
    return Path(ptb.__file__).with_name(ptb.STANFORD_CORENLP_3_4_1_JAR)


JAR = _jar()


def unavailable_reason() -> str | None:
    """Why the Java reference cannot run here (None when it can)."""
    if JAR is None:
        return "pycocoevalcap is not installed (pip install pycocoevalcap==1.2)"
    if not JAR.exists():
        return f"the Stanford CoreNLP jar is missing at {JAR}"
    if shutil.which("java") is None:
        return "java is not installed (Debian: apt-get install default-jre-headless; scripts/setup does it)"
    return None


def java_lines(captions: list[str]) -> list[str]:
    """Raw output lines of the Java tokenizer for ``captions`` (one line per caption as long as
    no caption holds a line break other than ``"\\n"``)."""
    text = "\n".join(c.replace("\n", " ") for c in captions)
    fd, path = tempfile.mkstemp(prefix="ptb-", suffix=".txt")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8", "surrogatepass"))
        out = subprocess.run(
            [
                "java",
                "-cp",
                str(JAR),
                "edu.stanford.nlp.process.PTBTokenizer",
                "-preserveLines",
                "-lowerCase",
                path,
            ],
            capture_output=True,
            check=True,
        ).stdout.decode("utf-8")
    finally:
        os.remove(path)
    return out.split("\n")
