"""No visitor can pin a Space (issue 26), against servers on 127.0.0.1 only, bounded in count
and time (:mod:`tests.spaces.load`):

* four worst-case requests (the dearest the work budget admits) sent at once, with a time
  limit they reach: one is scored, one waits, the others are told the Space is busy; the ones
  scored are stopped at the deadline with the limit's message, and once they are answered
  the server and its processes use (almost) no CPU; the Example, sent while they run, is
  answered (its latency is asserted loosely here; ``benchmarks/bench_space_load.py``
  reports it);
* the issue's request of 1,000 one-letter words (METEOR 1.5) is refused by the budget at once;
* a structure nested 600 levels gets the core's message;
* the server's memory after a series of calls with new words, each in a new session, stays
  within a bound (Gradio keeps a few sessions' state, the workers give theirs back).
"""

from __future__ import annotations

import pytest

from metricore.registry import get
from metricore.specs._cost import meteor15_path

from .load import LOAD_TIME_LIMIT, call, compute, pin_attempt, rss_series, start

psutil = pytest.importorskip("psutil")
pytest.importorskip("gradio")

pytestmark = [pytest.mark.space, pytest.mark.xdist_group("spaces-load")]

#: the Example's answer while the worst cases run; the target is 3 s on 2 quiet cores, the
#: test allows for a machine shared with other work
EXAMPLE_SECONDS = 15.0
#: growth of the index server's memory over RSS_CALLS calls, each a new session (Gradio's
#: default of 10,000 kept sessions grew it by about 0.38 MB a call)
RSS_CALLS = 300
RSS_GROWTH_MB = 60.0


@pytest.fixture(scope="module")
def meteor_server():
    server = start("meteor", METRICORE_SPACE_TIME_LIMIT=str(LOAD_TIME_LIMIT))
    try:
        example = get("meteor").examples[0]
        assert compute(server.port, list(example.predictions), list(example.references), "nltk").ok
        yield server
    finally:
        server.stop()


def test_worst_cases_are_stopped_and_the_example_is_answered(meteor_server, record_property):
    example = get("meteor").examples[0]
    outcome = pin_attempt(meteor_server, (list(example.predictions), list(example.references)))
    record_property("example_seconds", outcome.example_seconds)
    record_property("cpu_after_deadline", outcome.busy_after_deadline_cpu)
    print(
        f"worst case: {outcome.worst_rows} rows; Example answered in {outcome.example_seconds:.2f} s; "
        f"after the deadline {outcome.busy_after_deadline_cpu:.2f} CPU s in {outcome.idle_window:.1f} s; "
        + "; ".join(f"{'ok' if a.ok else str(a.value)[:60]} ({a.seconds:.1f} s)" for a in outcome.worst)
    )
    assert outcome.example_ok
    assert outcome.example_seconds < EXAMPLE_SECONDS
    assert len(outcome.worst) == 4
    stopped = [a for a in outcome.worst if not a.ok and "limit of 4 s" in str(a.value)]
    busy = [a for a in outcome.worst if not a.ok and "busy with other large requests" in str(a.value)]
    assert len(stopped) + len(busy) + sum(a.ok for a in outcome.worst) == 4, outcome.worst
    assert busy, "no worst case was refused as busy: more than one waited"
    assert all(a.seconds < 2 * LOAD_TIME_LIMIT + 30 for a in outcome.worst)
    # nothing of the stopped requests runs on: under a third of a core over the window
    assert outcome.busy_after_deadline_cpu < outcome.idle_window / 3


def test_the_issues_requests_get_clear_messages(meteor_server):
    letters = " ".join(["a"] * 1000)  # the issue's request: 40 s on the Python path
    answer = compute(meteor_server.port, [letters], [[letters, letters]], "meteor_1_5")
    if meteor15_path() == "compiled":  # lines of any length stay on it: under a second
        assert answer.ok and answer.value["headline"]["meteor"] == 1.0, answer.value
    else:
        assert not answer.ok and "Request too large to score here" in str(answer.value), answer.value
    assert answer.seconds < 10.0  # scored, or refused by the estimate: never run to the deadline
    deep: object = "x"
    for _ in range(600):
        deep = [deep]
    answer = call(meteor_server.port, "compute", [[deep], [["x"]], "nltk", {}, 0.0])
    assert not answer.ok
    assert "`predictions[0]` is nested more than 100 levels deep" in str(answer.value), answer.value


@pytest.fixture(scope="module")
def index_server():
    server = start("index")
    try:
        yield server
    finally:
        server.stop()


def test_memory_after_a_series_of_calls_is_bounded(index_server, record_property):
    before, after, peak = rss_series(index_server, RSS_CALLS, api="meteor_compute")
    record_property("rss_before_mb", before)
    record_property("rss_after_mb", after)
    print(f"index Space RSS over {RSS_CALLS} calls: {before:.0f} -> {after:.0f} MB (peak {peak:.0f} MB)")
    assert after - before < RSS_GROWTH_MB
