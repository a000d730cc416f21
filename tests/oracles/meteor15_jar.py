"""The reference for METEOR 1.5: pycocoevalcap 1.2's ``Meteor`` (its jar, run by ``java``).

:class:`JarMeteor` starts ``pycocoevalcap.meteor.Meteor`` (``java -jar -Xmx2G meteor-1.5.jar
- - -stdio -l en -norm``, one process) and talks to it as ``Meteor.compute_score`` does: one
``SCORE`` line per image (through the package's own ``_stat``), then one ``EVAL`` line with
all statistics, which returns the segment scores and the corpus score. The statistics are
kept so that tests can compare each stage.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence

__all__ = ["JarMeteor", "unavailable_reason"]


def unavailable_reason() -> str | None:
    if shutil.which("java") is None:
        return "java not installed (Debian: default-jre-headless)"
    try:
        import pycocoevalcap.meteor.meteor  # type: ignore[import-untyped]  # noqa: F401
    except ImportError:
        return "pycocoevalcap not installed (pip install 'metricore[coco]')"
    return None


class JarMeteor:
    def __init__(self) -> None:
        from pycocoevalcap.meteor.meteor import Meteor

        self._m = Meteor()

    def stats(self, hypothesis: str, references: Sequence[str]) -> str:
        """The ``SCORE`` line's answer for one image, as pycocoevalcap sends it."""
        return str(self._m._stat(hypothesis, list(references)))

    def evaluate(self, stats: Sequence[str]) -> tuple[list[float], float]:
        """``EVAL ||| s1 ||| s2 ...``: the segment scores and the corpus score."""
        m = self._m
        line = "EVAL" + "".join(f" ||| {s}" for s in stats)
        with m.lock:
            m.meteor_p.stdin.write(f"{line}\n".encode())
            m.meteor_p.stdin.flush()
            scores = [float(m.meteor_p.stdout.readline().strip()) for _ in stats]
            corpus = float(m.meteor_p.stdout.readline().strip())
        return scores, corpus

    def compute(
        self, hypotheses: Sequence[str], references: Sequence[Sequence[str]]
    ) -> tuple[list[str], list[float], float]:
        stats = [self.stats(h, r) for h, r in zip(hypotheses, references)]
        scores, corpus = self.evaluate(stats)
        return stats, scores, corpus

    def close(self) -> None:
        m = self._m
        m.meteor_p.stdin.close()
        m.meteor_p.kill()
        m.meteor_p.wait()
