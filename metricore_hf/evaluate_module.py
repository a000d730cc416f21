"""The shared base of every ``metrics/<name>/<name>.py`` script (Hugging Face ``evaluate``).

The scripts stay thin: they declare their configs, card text and call the core. This base
adds what ``evaluate`` lacks:

* inputs are checked in ``add``/``add_batch`` (so streaming and distributed runs get the
  same clear ``TypeError``/``ValueError`` naming the argument and the absolute row index as
  ``compute`` does) and canonicalised into one column type per config (a bare gold string
  becomes a one-element list; structured answers become tagged JSON text), because the Arrow
  cache needs one schema and would otherwise fail on mixed rows;
* ``compute`` keyword arguments are checked against the config's allowed set;
* ``compute(..., confidence=0.95)`` (with ``n_resamples=1000``, ``seed=0``) adds a percentile
  bootstrap interval of every headline number as flat ``<key>_ci_low``/``<key>_ci_high`` keys
  (flat, so that ``transformers.Trainer`` logs them), plus ``confidence``, ``n_resamples`` and
  ``seed``; adapters return ``self._finish(core_result)`` and the per-item statistics come
  from the core result (:mod:`metricore.intervals`);
* every result dict carries the core's reproducibility ``signature``;
* distributed mode (``num_process > 1``) never scores a partial gather: each process > 0
  writes a completion marker (its row count and the run token process 0 wrote when the
  processes met) before it releases its cache file, and process 0 accepts only markers of
  this run and checks the total row count before it computes. A process that died
  after adding rows (its lock freed by the OS, its Arrow file partial or empty) or never
  joined makes process 0 raise :class:`DistributedTimeoutError` after ``timeout`` seconds
  (``evaluate.load(..., timeout=...)``, default 100) instead of returning a wrong number.

The caller's lists are never modified: canonicalisation builds new lists.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import datasets
import evaluate
import pyarrow as pa

from metricore import registry
from metricore.core._gc import paused_gc
from metricore.core.files import write_atomic
from metricore.core.spec import BoundMetric, Config, MetricSpec
from metricore.core.structured import from_json, to_json
from metricore.core.validation import check_strings, paired_columns, string_alternatives
from metricore.stats.significance import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    check_interval_method,
    check_interval_options,
)

__all__ = [
    "CoreMetric",
    "DistributedTimeoutError",
    "DistributedConflictError",
    "STRING_FEATURES",
    "JSON_FEATURES",
    "KIND_FEATURES",
    "config_features",
    "prepare_strings",
    "prepare_structured",
    "decode_structured",
    "single_golds",
    "INTERVAL_KWARGS",
]


class DistributedTimeoutError(TimeoutError):
    """A distributed ``compute`` could not gather every process's rows: a process never
    joined, never finished, or exited without finishing."""


class DistributedConflictError(RuntimeError):
    """A distributed run cannot be trusted: two processes use one ``process_id``, or files
    of an earlier run with the same ``experiment_id`` are still in the cache directory."""


#: ``compute`` keywords of every config: the opt-in bootstrap interval
INTERVAL_KWARGS = frozenset({"confidence", "n_resamples", "seed", "interval_method"})
#: what ``compute`` takes besides the options (the data keywords: a misspelt one lands among
#: the options, and the message then suggests the right name)
_COMPUTE_KEYWORDS = INTERVAL_KWARGS | {"predictions", "references"}

STRING_FEATURES = datasets.Features(
    {
        "predictions": datasets.Value("string"),
        "references": datasets.Sequence(datasets.Value("string")),
    }
)
JSON_FEATURES = datasets.Features(
    {"predictions": datasets.Value("string"), "references": datasets.Value("string")}
)
SQUAD_DICT_FEATURES = datasets.Features(
    {
        "predictions": {
            "id": datasets.Value("string"),
            "prediction_text": datasets.Value("string"),
            "no_answer_probability": datasets.Value("float64"),
        },
        "references": {
            "id": datasets.Value("string"),
            "answers": datasets.Sequence(datasets.Value("string")),
        },
    }
)
LIST_FEATURES = datasets.Features(
    {
        "predictions": datasets.Sequence(datasets.Value("string")),
        "references": datasets.Sequence(datasets.Value("string")),
    }
)
DIALOG_FEATURES = datasets.Features(
    {
        "predictions": datasets.Value("string"),
        "references": {
            "dialog_id": datasets.Value("string"),
            "answers": datasets.Sequence(datasets.Value("string")),
        },
    }
)

#: the Arrow columns of each (prediction kind, reference kind) of a spec's config
#: (metricore.core.spec.InputKind); structured values travel as tagged JSON text
KIND_FEATURES: dict[tuple[str, str], datasets.Features] = {
    ("text", "alternatives"): STRING_FEATURES,
    ("structured", "structured"): JSON_FEATURES,
    ("task_inputs", "structured"): JSON_FEATURES,
    ("tokens", "alternatives"): JSON_FEATURES,
    ("squad_record", "squad_record"): SQUAD_DICT_FEATURES,
    ("entities", "entities"): LIST_FEATURES,
    ("text", "dialog_turn"): DIALOG_FEATURES,
}


def config_features(config: Config) -> datasets.Features | list[datasets.Features]:
    """The features of a spec config: one set per accepted input format (evaluate picks one
    per run from the first batch)."""
    found = [KIND_FEATURES[pair] for pair in config.inputs]
    return found[0] if len(found) == 1 else found


Preparer = Callable[[list[Any], list[Any], str, int], tuple[list[Any], list[Any]]]


def prepare_strings(
    preds: list[Any], refs: list[Any], metric: str, start: int
) -> tuple[list[str], list[list[str]]]:
    """String predictions; gold alternatives as lists (a bare str is one answer).

    The common column (lists of str, or bare str) is checked in C-speed passes (the types of
    the rows and of their golds, the empty lists); any other row goes through
    :func:`string_alternatives`, which names the bad row."""
    out_preds = check_strings(preds, metric, "predictions", start)
    kinds = set(map(type, refs))
    if kinds <= {str}:  # one bare gold per row: nothing left to check
        return out_preds, [[r] for r in refs]
    if kinds <= {list, str}:
        golds = [[r] if type(r) is str else r for r in refs] if str in kinds else list(refs)
        if set(map(type, itertools.chain.from_iterable(golds))) <= {str} and 0 not in map(len, golds):
            return out_preds, golds
    return out_preds, [string_alternatives(r, metric, start + i) for i, r in enumerate(refs)]


def prepare_structured(
    preds: list[Any], refs: list[Any], metric: str, start: int
) -> tuple[list[str], list[str]]:
    """Any JSON-like structure (tuples kept) as tagged JSON text, one cell per row."""
    try:
        p = [to_json(x, f"predictions[{start + i}]") for i, x in enumerate(preds)]
        r = [to_json(x, f"references[{start + i}]") for i, x in enumerate(refs)]
    except (TypeError, ValueError) as err:
        raise type(err)(f"{metric}: {err}") from None
    return p, r


def decode_structured(column: Sequence[str]) -> list[Any]:
    return [from_json(x) for x in column]


def single_golds(references: list[Any]) -> list[Any]:
    """Stored gold alternatives (lists of str) as bare strings when every row holds exactly
    one, else as they are. For a core that reads a bare str as one answer (its gold check,
    :func:`metricore.core.validation.gold_column`, returns the same flat column either way),
    this spares it a list per row and two passes over the column; the unpacking is the check
    (it stops at the first row with several alternatives)."""
    try:
        return [gold for (gold,) in references]
    except ValueError:
        return references


_STRING = datasets.Value("string")


def _text_features(features: Any) -> bool:
    """Whether every column is a string or a sequence of strings (what ``encode_batch`` leaves
    as it is)."""
    if not isinstance(features, datasets.Features) or set(features) != {"predictions", "references"}:
        return False
    for feature in features.values():
        # a sequence (datasets.List, or the Sequence of older datasets) of one value type
        inner = getattr(feature, "feature", feature)
        if inner != _STRING or (inner is not feature and getattr(feature, "length", -1) != -1):
            return False
    return True


def _utf8_ok(value: Any) -> bool:
    """Whether every str in ``value`` (a prepared row or column: str, list, dict, number)
    encodes as UTF-8; one C-speed pass through ``json.dumps``."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    except (TypeError, ValueError):  # not JSON-like: leave it to evaluate's own checks
        return True
    return True


class CoreMetric(evaluate.Metric):
    """Base class: set ``METRIC`` (a :mod:`metricore.registry` name) and the card texts
    (``DESCRIPTION``, ``CITATION``, ``KWARGS_DESCRIPTION``, ``CODEBASE_URLS``,
    ``REFERENCE_URLS``); the configs, their features (from the spec's input kinds, or
    ``STORAGE`` for every config), the allowed ``compute`` keywords and the computation come
    from the metric's spec. Override ``_prepare`` (checks and canonical rows; default: string
    predictions and gold alternatives) and ``_decode`` (stored rows back to the core's input)
    where the input kinds need it."""

    METRIC: str = ""
    _bound: BoundMetric
    #: evaluate's Arrow writer of this process's rows (``None`` before the first row)
    writer: Any
    #: evaluate's features of this run's rows (chosen from the first batch)
    selected_feature_format: Any

    def __init__(self, *args: Any, num_process: Any = 1, process_id: Any = 0, **kwargs: Any) -> None:
        for name, value in (("num_process", num_process), ("process_id", process_id)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(
                    f"{self.METRIC}: `{name}` must be an int, got {type(value).__name__} ({value!r:.40})"
                )
        if num_process < 1:
            raise ValueError(f"{self.METRIC}: `num_process` must be >= 1, got {num_process}")
        if not 0 <= process_id < num_process:
            raise ValueError(
                f"{self.METRIC}: `process_id` must be in 0..{num_process - 1} (num_process={num_process}), "
                f"got {process_id}; give each of the {num_process} processes its own id (its global rank, "
                "not a per-node local rank)"
            )
        super().__init__(*args, num_process=num_process, process_id=process_id, **kwargs)

    #: one feature set for every config (e.g. JSON text), instead of the input kinds'
    STORAGE: datasets.Features | None = None
    DESCRIPTION: str = ""
    CITATION: str = ""
    KWARGS_DESCRIPTION: str = ""
    CODEBASE_URLS: tuple[str, ...] = ()
    REFERENCE_URLS: tuple[str, ...] = ()

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=self.DESCRIPTION,
            citation=self.CITATION,
            inputs_description=self.KWARGS_DESCRIPTION,
            features=self._features(),
            codebase_urls=list(self.CODEBASE_URLS),
            reference_urls=list(self.REFERENCE_URLS),
        )

    @property
    def spec(self) -> MetricSpec:
        return registry.get(self.METRIC)

    def _checked_config(self) -> str:
        return self.spec.config(self.config_name).name

    @property
    def variant(self) -> str:
        return self._checked_config()

    def _features(self) -> datasets.Features | list[datasets.Features]:
        config = self.spec.config(self.config_name)
        return self.STORAGE if self.STORAGE is not None else config_features(config)

    def _prepare(self, preds: list[Any], refs: list[Any], start: int) -> tuple[list[Any], list[Any]]:
        return prepare_strings(preds, refs, self.METRIC, start)

    def _decode(self, predictions: list[Any], references: list[Any]) -> tuple[list[Any], list[Any]]:
        return predictions, references

    def _compute(self, predictions: list[Any], references: list[Any]) -> dict[str, Any]:
        preds, refs = self._decode(list(predictions), list(references))
        return self._finish(self._bound.run(preds, refs))

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Score everything added so far plus ``predictions``/``references``; the keyword
        arguments are the config's options (:meth:`metricore.core.spec.MetricSpec.bind` checks
        them, before any cached row is consumed) and ``confidence`` (in (0, 1)),
        ``n_resamples`` (1000), ``seed`` (0) and ``interval_method`` for bootstrap intervals
        (module docstring).
        """
        # evaluate consumes the added rows before _compute runs: a bad option refused only by
        # the core would leave a retry with nothing to score
        self._bound = self.spec.bind_options(self.config_name, kwargs, also_allowed=_COMPUTE_KEYWORDS)
        self._interval_options = self._pop_interval_options(kwargs)
        self._interval_done = False
        if self.num_process > 1 and self.writer is None and predictions is None:
            # a process without rows of its own must still meet the others: evaluate would skip
            # the rendezvous (process 0 would read whatever files are there, another run's
            # included; process 0 would wait in vain for a process > 0)
            self._start_empty_writer()
        try:
            # The Arrow round trip turns every cached row back into Python objects; with the
            # collector on, those allocations set off full collections that took two thirds
            # of a 100,000-row 1-NED compute. Nothing in it needs the collector to run.
            with paused_gc():
                out = super().compute(predictions=predictions, references=references)
        finally:
            requested, self._interval_options = self._interval_options, None
        if requested is not None and out is not None and not self._interval_done:
            raise NotImplementedError(
                f"{self.METRIC} ({self._checked_config()}): confidence intervals are not available for this config"
            )
        return out

    def _pop_interval_options(
        self, kwargs: dict[str, Any]
    ) -> tuple[float, int, int | None, str | None] | None:
        """``(confidence, n_resamples, seed, interval_method)`` taken out of ``kwargs``, checked;
        ``None`` when no interval was asked for (``seed=None`` draws fresh entropy: not
        reproducible; ``interval_method`` "percentile" or "bca", ``None``: the metric's default)."""
        confidence = kwargs.pop("confidence", None)
        given = {k: kwargs.pop(k) for k in ("n_resamples", "seed", "interval_method") if k in kwargs}
        if confidence is None:
            if given:
                raise ValueError(
                    f"{self.METRIC}: {' and '.join(f'`{k}`' for k in given)} "
                    f"{'apply' if len(given) > 1 else 'applies'} only with `confidence` (e.g. confidence=0.95)"
                )
            return None
        return (
            *check_interval_options(
                confidence,
                given.get("n_resamples", DEFAULT_RESAMPLES),
                given.get("seed", DEFAULT_SEED),
                self.METRIC,
            ),
            check_interval_method(given.get("interval_method"), self.METRIC),
        )

    def _finish(self, result: Any) -> dict[str, Any]:
        """The result dict of a core result (``as_dict()``), with the bootstrap interval of each
        headline number when ``compute`` was asked for one."""
        out = result.as_dict()
        options = getattr(self, "_interval_options", None)
        if options is not None:
            from metricore.intervals import interval_fields

            confidence, n_resamples, seed, method = options
            out.update(
                interval_fields(
                    result, confidence=confidence, n_resamples=n_resamples, seed=seed, method=method
                )
            )
            self._interval_done = True
        return out

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Check, canonicalise and cache a batch of predictions and references."""
        preds, refs = paired_columns(predictions, references, self.METRIC)
        # in distributed mode one process may hold no rows; the gathered total is checked in compute
        if not preds and len(self) == 0 and self.num_process == 1:
            raise ValueError(
                f"{self.METRIC}: `predictions` is empty; the mean over zero samples is undefined"
            )
        with paused_gc():
            start = len(self)
            preds, refs = self._prepare(preds, refs, start)
            if not kwargs and self._write_typed(preds, refs, start):
                return None
            self._check_storable(preds, refs, start)
            return super().add_batch(predictions=preds, references=refs, **kwargs)

    def _write_typed(self, preds: list[Any], refs: list[Any], start: int) -> bool:
        """Write prepared rows straight to the Arrow cache when the features are text columns
        (a string, or a sequence of strings): ``datasets``' per-row ``encode_batch`` is the
        identity on them once :meth:`_prepare` has checked every value's type, and was most of
        the evaluate path's cost. ``False``: let ``evaluate`` encode (other features).

        The columns become Arrow arrays of the features' types here, in pyarrow's C loop, which
        is also the check that every str encodes as UTF-8 (a lone surrogate raises
        ``UnicodeEncodeError``, and only then does :meth:`_check_storable` look for the row).
        Nothing is written, and no writer started, unless both columns convert."""
        batch = {"predictions": preds, "references": refs}
        if self.writer is not None:
            features = self.selected_feature_format
        else:
            try:
                features = self._infer_feature_from_batch(batch)
            except (ValueError, TypeError):
                return False  # evaluate's add_batch raises it again, after the surrogate check
        if not _text_features(features):
            return False
        schema = features.arrow_schema
        try:
            arrays = {name: pa.array(column, type=schema.field(name).type) for name, column in batch.items()}
        except UnicodeEncodeError:
            self._check_storable(preds, refs, start)  # raises, naming the row
            raise
        if self.writer is None:
            self.selected_feature_format = features
            self._init_writer()
        self.writer.write_batch(arrays)
        return True

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Check, canonicalise and cache one prediction and its reference."""
        # evaluate.combine(...).add passes the feature names (plural), which evaluate's own
        # add accepts through **kwargs
        if prediction is None and reference is None and {"predictions", "references"} <= set(kwargs):
            prediction, reference = kwargs.pop("predictions"), kwargs.pop("references")
        start = len(self)
        preds, refs = self._prepare([prediction], [reference], start)
        self._check_storable(preds, refs, start)
        return super().add(prediction=preds[0], reference=refs[0], **kwargs)

    def _check_storable(self, preds: list[Any], refs: list[Any], start: int) -> None:
        """``ValueError`` naming the row when a prepared value holds a lone surrogate: the core
        scores such a str, but the Arrow cache stores UTF-8 and would fail inside pyarrow
        without naming the row. (Structured values travel as JSON text with the surrogate
        escaped, so they are stored and scored as the core scores them.)"""
        for name, column in (("predictions", preds), ("references", refs)):
            if _utf8_ok(column):
                continue
            for i, value in enumerate(column):
                if not _utf8_ok(value):
                    raise ValueError(
                        f"{self.METRIC}: `{name}[{start + i}]` contains a lone surrogate (U+D800..U+DFFF), "
                        "which the evaluate cache (Arrow, UTF-8) cannot store; fix the text's decoding, "
                        "or score it with the core function (metricore.compute_*), which accepts it"
                    )

    # ---------------------------------------------------------------- distributed mode
    # evaluate 0.4.6 (module.py) gathers by file locks alone: process k > 0 holds the lock of
    # its Arrow file until its compute() finishes the file, and process 0 reads every file once
    # it can take every lock. A process that dies frees its lock too, so process 0 would read a
    # partial (or schema-less) file. The marker written just before the lock is released tells
    # the two apart.

    def _done_marker(self, process_id: int) -> str:
        return os.path.join(self.data_dir, f"{self.experiment_id}-{self.num_process}-{process_id}.arrow.done")

    def _conflict_file(self) -> str:
        return os.path.join(self.data_dir, f"{self.experiment_id}-{self.num_process}.conflict")

    def _run_file(self) -> str:
        return os.path.join(self.data_dir, f"{self.experiment_id}-{self.num_process}.run")

    def _write_run_token(self) -> None:
        """Process 0, inside the rendezvous: a fresh token for this run. Every process > 0
        passes the rendezvous only after process 0 releases it, so each reads this run's token
        and copies it into its completion marker; process 0 accepts only markers with it."""
        self._run_token = uuid.uuid4().hex
        write_atomic(self._run_file(), self._run_token)

    def _read_run_token(self) -> str:
        try:
            with open(self._run_file(), encoding="utf-8") as handle:
                return handle.read().strip()
        except FileNotFoundError:
            raise self._conflict(
                f"the run file {os.path.basename(self._run_file())} that process 0 writes when the processes "
                "meet is missing (deleted while the run was going on?)"
            ) from None

    def _start_empty_writer(self) -> None:
        features = self.info.features
        self.selected_feature_format = features[0] if isinstance(features, list) else features
        self._init_writer()

    def _conflict(self, what: str) -> DistributedConflictError:
        """The error, also written where the other processes of the run look (process 0
        before it reads, the others when they start), so that no process scores or waits on
        a run that cannot be right."""
        message = (
            f"{self.METRIC}: distributed run (experiment_id={self.experiment_id!r}, num_process="
            f"{self.num_process}) refused by process {self.process_id}: {what}. Nothing was computed. Give "
            "every process its own process_id in 0..num_process-1 and every run its own experiment_id "
            f"(or delete the files '{self.experiment_id}-{self.num_process}-*' in {self.data_dir})"
        )
        with contextlib.suppress(OSError):
            with open(self._conflict_file(), "a", encoding="utf-8") as handle:
                handle.write(message + "\n")
        return DistributedConflictError(message)

    def _raise_if_conflict(self) -> None:
        try:
            with open(self._conflict_file(), encoding="utf-8") as handle:
                first = handle.readline().strip()
        except FileNotFoundError:
            return
        raise DistributedConflictError(
            f"{self.METRIC}: distributed run (experiment_id={self.experiment_id!r}) cannot be scored; "
            f"a process reported: {first} (file {self._conflict_file()})"
        )

    def _create_cache_file(self, timeout=1):
        if self.num_process == 1:
            return super()._create_cache_file(timeout)
        self._raise_if_conflict()
        try:
            file_path, filelock = super()._create_cache_file(timeout)
        except ValueError:
            raise self._conflict(
                f"another live process holds the cache file of process_id={self.process_id} "
                "(two processes were given the same process_id)"
            ) from None
        # This process writes its marker only when it finishes, and process 0 deletes markers
        # once read: a marker of this process_id that exists now is another process's with the
        # same process_id, or left by an earlier run that failed. Either way rows would mix.
        # (Process 0 cannot judge the others' markers here: evaluate's rendezvous lets a fast
        # process finish before process 0 starts, so a fresh marker can precede it.)
        marker = self._done_marker(self.process_id)
        if self.process_id > 0 and os.path.exists(marker):
            # the refusal is written before the lock goes: process 0 takes the lock to read
            # this shard, and must find the refusal when it does
            conflict = self._conflict(
                f"found {os.path.basename(marker)}, a finished shard of process_id={self.process_id} that is "
                "not this process's (another process with the same process_id, or an earlier run with this "
                "experiment_id that failed)"
            )
            filelock.release()
            raise conflict
        return file_path, filelock

    def _init_writer(self, timeout=1):
        try:
            return super()._init_writer(timeout)
        except ValueError as err:
            if self.num_process == 1 or "rdv" not in str(err):
                raise
            raise self._conflict(
                "another live process holds the rendezvous lock of process 0 (two processes were given "
                "process_id=0)"
            ) from None

    def _distributed_error(self, what: str) -> Exception:
        # a process that refused the run says why; that beats "timed out"
        try:
            self._raise_if_conflict()
        except DistributedConflictError as conflict:
            return conflict
        return DistributedTimeoutError(
            f"{self.METRIC}: distributed compute (experiment_id={self.experiment_id!r}, "
            f"num_process={self.num_process}) {what}; nothing was computed, because a result "
            "without every process's rows would be wrong. Check that every process adds its rows and "
            "calls compute(), or raise `timeout` (evaluate.load(..., timeout=seconds)) if they are slow"
        )

    def _check_all_processes_locks(self):
        try:
            super()._check_all_processes_locks()
        except ValueError as err:
            raise self._distributed_error(
                f"timed out after {self.timeout} s waiting for every process to start adding rows ({err})"
            ) from None
        self._write_run_token()  # evaluate releases the rendezvous lock right after this

    def _check_rendez_vous(self):
        try:
            super()._check_rendez_vous()
        except ValueError as err:
            raise self._distributed_error(
                f"timed out after {self.timeout} s waiting for process 0 to start adding rows ({err})"
            ) from None

    def _get_all_cache_files(self):
        if self.num_process == 1:
            return super()._get_all_cache_files()
        try:
            file_paths, filelocks = super()._get_all_cache_files()
        except ValueError as err:
            raise self._distributed_error(
                f"timed out after {self.timeout} s waiting for the other processes to call compute() ({err})"
            ) from None
        self._shard_rows = {}
        for process_id in range(1, self.num_process):
            rows = self._wait_for_marker(process_id)
            if rows is None:
                for lock in filelocks[1:]:
                    lock.release()
                raise self._distributed_error(
                    f"timed out after {self.timeout} s: process {process_id} released its cache file "
                    "without finishing it (it exited or was killed before compute(), or its metric object "
                    "was deleted); its rows would be missing"
                )
            self._shard_rows[process_id] = rows
        return file_paths, filelocks

    def _wait_for_marker(self, process_id: int) -> int | None:
        """The row count process ``process_id`` wrote, or ``None`` if its marker does not
        appear within ``timeout`` seconds (the wait covers shared file systems that show a
        file late)."""
        deadline = time.monotonic() + self.timeout
        path = self._done_marker(process_id)
        while True:
            try:
                with open(path, encoding="utf-8") as handle:
                    marker = json.load(handle)
                rows, run = int(marker["rows"]), marker["run"]
            except (FileNotFoundError, ValueError, KeyError, TypeError):
                if time.monotonic() >= deadline:
                    return None
                time.sleep(0.05)
                continue
            if run != self._run_token:
                raise self._conflict(
                    f"found {os.path.basename(path)}, a finished shard of process_id={process_id} written in "
                    "another run (an earlier run with this experiment_id, or a process that joined another "
                    "process 0); its rows are not this run's"
                )
            return rows

    def _finalize(self):
        if self.num_process == 1 or self.keep_in_memory:
            return super()._finalize()
        if self.process_id > 0:
            if self.writer is not None:
                rows, _ = self.writer.finalize()
                self.writer = None
                # atomic: process 0 never reads half a marker
                write_atomic(
                    self._done_marker(self.process_id),
                    json.dumps({"rows": rows, "run": self._read_run_token()}),
                )
            return super()._finalize()  # releases the lock
        own = 0 if self.writer is None else len(self.writer)
        super()._finalize()
        try:
            self._raise_if_conflict()
        except DistributedConflictError:
            for lock in self.filelocks[1:]:
                lock.release()
            raise
        expected = own + sum(self._shard_rows.values())
        if len(self.data) != expected:
            raise self._distributed_error(
                f"read {len(self.data)} rows but the processes wrote {expected} "
                f"(process 0: {own}, others: {self._shard_rows})"
            )
        for path in [self._done_marker(k) for k in self._shard_rows] + [self._run_file()]:
            with contextlib.suppress(FileNotFoundError):
                os.remove(path)
