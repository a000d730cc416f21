"""Toy compute functions for the Spaces' in-process tests: module-level, so that a scoring
worker process (which receives the spec pickled, its functions by reference) can run them."""

from __future__ import annotations

import os
import time
import warnings
from typing import Any

from metricore.registry import get


def boom(config: str, predictions: list[Any], references: list[Any], options: Any) -> Any:
    raise RuntimeError("boom")


def missing_data(config: str, predictions: list[Any], references: list[Any], options: Any) -> Any:
    raise LookupError("WordNet is not installed: run scripts/setup")


def spin(config: str, predictions: list[Any], references: list[Any], options: Any) -> Any:
    """Writes its pid to the file named by the first prediction, then runs pure Python for
    ever: only a killed process stops."""
    with open(predictions[0], "w") as f:
        f.write(str(os.getpid()))
    while True:
        pass


def hog(config: str, predictions: list[Any], references: list[Any], options: Any) -> Any:
    """Asks for far more memory than a request may use."""
    blocks = []
    while True:
        blocks.append(bytearray(256 * 2**20))


def noisy(config: str, predictions: list[Any], references: list[Any], options: Any) -> Any:
    """Three warnings naming the request, then the real 1-NED."""
    for _ in range(3):
        warnings.warn(f"from {predictions[0]}", UserWarning, stacklevel=1)
        time.sleep(0.01)
    return get("one_minus_ned").compute(config, predictions, references, options)
