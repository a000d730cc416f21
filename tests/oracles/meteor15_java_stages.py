"""The jar's own normalizer and stemmer classes, run through ``java`` for stage tests.

A tiny Java program (compiled into a temporary folder with ``javac`` against the jar) reads
lines on stdin and prints ``edu.cmu.meteor.util.Normalizer.normalizeLine(line, LANG_EN,
true)`` or ``org.tartarus.snowball.ext.englishStemmer``'s stem of each line.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile

__all__ = ["jar_lines", "unavailable_reason"]

_SOURCE = """
import java.io.*;
import org.tartarus.snowball.ext.englishStemmer;
import edu.cmu.meteor.util.Normalizer;
public class Stages {
  public static void main(String[] a) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
    PrintStream out = new PrintStream(new BufferedOutputStream(System.out), false, "UTF-8");
    englishStemmer st = new englishStemmer();
    String line;
    while ((line = in.readLine()) != null) {
      if (a[0].equals("stem")) { st.setCurrent(line); st.stem(); out.println(st.getCurrent()); }
      else out.println(Normalizer.normalizeLine(line, 0, true));
    }
    out.flush();
  }
}
"""


def unavailable_reason() -> str | None:
    if shutil.which("javac") is None or shutil.which("java") is None:
        return "javac/java not installed (Debian: default-jdk-headless)"
    try:
        from metricore.metrics.meteor15.data import jar_path

        jar_path()
    except (ImportError, OSError) as exc:
        return str(exc)
    return None


@functools.lru_cache(maxsize=1)
def _classpath() -> str:
    from metricore.metrics.meteor15.data import jar_path

    folder = tempfile.mkdtemp(prefix="meteor15-stages-")
    with open(os.path.join(folder, "Stages.java"), "w", encoding="utf-8") as f:
        f.write(_SOURCE)
    subprocess.run(
        ["javac", "-cp", jar_path(), "-d", folder, os.path.join(folder, "Stages.java")], check=True
    )
    return jar_path() + os.pathsep + folder


def jar_lines(mode: str, lines: list[str]) -> list[str]:
    """``mode`` "norm" or "stem" applied by the jar's classes to each line (no line breaks)."""
    out = subprocess.run(
        ["java", "-cp", _classpath(), "Stages", mode],
        input=("\n".join(lines) + "\n").encode("utf-8"),
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8")
    result = out.split("\n")[:-1]
    assert len(result) == len(lines), (len(result), len(lines))
    return result
