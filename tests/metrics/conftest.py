"""Fixtures shared by the metric tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.oracles import meteor15_jar


@pytest.fixture(scope="session")
def jar() -> Iterator[meteor15_jar.JarMeteor]:
    """pycocoevalcap's METEOR 1.5 jar in ``-stdio`` mode, one JVM for the session."""
    j = meteor15_jar.JarMeteor()
    yield j
    j.close()
