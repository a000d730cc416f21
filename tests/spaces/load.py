"""A load test of a Space on loopback, for ``test_space_load.py`` and
``benchmarks/bench_space_load.py``: the requests that pinned the METEOR Space (issue 26), the
Example answered while they run, the CPU after the deadline and the memory after a series of
calls. Every request goes to 127.0.0.1 through Gradio's REST API (``/gradio_api/call/...``),
as ``curl`` would send it: one new session per call, the case that grew Gradio's state."""

from __future__ import annotations

import http.client
import json
import random
import shutil
import string
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.spaces.servers import HOST, ROOT, free_port, offline_env, wait_ready

#: the time limit of the load test's server: short, so that the worst cases reach it
LOAD_TIME_LIMIT = 4.0


@dataclass
class Server:
    """A Space app running as ``python app.py`` on a free loopback port."""

    proc: subprocess.Popen
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def private_cache(folder: Path) -> str:
    """A copy of this machine's metricore cache (METEOR 1.5's paraphrase index) under
    ``folder``, for a server of its own: another process rebuilding the shared index meanwhile
    would have the server build it again in the background, in the middle of a measurement."""
    from metricore.metrics.meteor15.data import cache_dir

    if Path(cache_dir()).is_dir():
        shutil.copytree(cache_dir(), folder / "metricore", ignore=shutil.ignore_patterns(".*lock"))
    return str(folder)


def start(app: str, **env: str) -> Server:
    port = free_port()
    folder = Path(tempfile.mkdtemp(prefix="metricore-load-"))
    log = folder / f"{app}.log"
    env.setdefault("XDG_CACHE_HOME", private_cache(folder / "cache"))
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, str(ROOT / "spaces" / app / "app.py")],
            cwd=ROOT,
            env=offline_env(port, **env),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    server = Server(proc, port, log)
    try:
        wait_ready(server.url, proc, log, time.monotonic() + 240.0)
    except BaseException:
        server.stop()
        raise
    return server


@dataclass
class Answer:
    ok: bool
    value: Any
    seconds: float


def call(port: int, api_name: str, data: list[Any], timeout: float = 300.0) -> Answer:
    """POST ``data`` to ``/gradio_api/call/<api_name>`` and read the event stream to its end."""
    t0 = time.perf_counter()
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        conn.request(
            "POST",
            f"/gradio_api/call/{api_name}",
            json.dumps({"data": data}),
            {"Content-Type": "application/json"},
        )
        response = conn.getresponse()
        body = response.read()
        if response.status != 200:
            return Answer(False, body.decode("utf-8", "replace"), time.perf_counter() - t0)
        event_id = json.loads(body)["event_id"]
        conn.request("GET", f"/gradio_api/call/{api_name}/{event_id}")
        stream = conn.getresponse().read().decode("utf-8")
    finally:
        conn.close()
    seconds = time.perf_counter() - t0
    event = None
    for line in stream.splitlines():
        if line.startswith("event: "):
            event = line[len("event: ") :]
        elif line.startswith("data: ") and event in ("complete", "error"):
            payload = json.loads(line[len("data: ") :])
            if event == "complete":
                return Answer(True, payload[0], seconds)
            return Answer(False, payload, seconds)
    return Answer(False, stream[-500:], seconds)


def compute(
    port: int, predictions: list[Any], references: list[Any], variant: str = "", api: str = "compute"
) -> Answer:
    return call(port, api, [predictions, references, variant, {}, 0.0])


def words(rng: random.Random, n: int, length: int = 8) -> str:
    """``n`` words never seen before (stems and synonyms looked up cold)."""
    return " ".join("".join(rng.choices(string.ascii_lowercase, k=length)) for _ in range(n))


def worst_case(seed: int = 0) -> tuple[list[str], list[list[str]]]:
    """The dearest METEOR (NLTK) request the budget admits: rows of 12 new words with 5
    references each, added while the estimate stays under the work budget."""
    from metricore.registry import get
    from metricore_hf.space.limits import MAX_ROWS, MAX_WORK

    rng = random.Random(seed)
    bound = get("meteor").bind("nltk")
    preds: list[str] = []
    refs: list[list[str]] = []
    step = 50
    while len(preds) + step <= MAX_ROWS:  # bounded by the row limit
        more_p = [words(rng, 12) for _ in range(step)]
        more_r = [[words(rng, 12) for _ in range(5)] for _ in range(step)]
        if bound.cost(preds + more_p, refs + more_r) > 0.97 * MAX_WORK:
            break
        preds += more_p
        refs += more_r
    return preds, refs


def tree_cpu(pid: int) -> dict[int, float]:
    """CPU seconds used so far by process ``pid`` and each of its living descendants."""
    import psutil

    out: dict[int, float] = {}
    try:
        procs = [psutil.Process(pid)]
        procs += procs[0].children(recursive=True)
    except psutil.NoSuchProcess:
        return out
    for p in procs:
        try:
            t = p.cpu_times()
            out[p.pid] = t.user + t.system
        except psutil.NoSuchProcess:
            pass
    return out


def cpu_between(before: dict[int, float], after: dict[int, float]) -> tuple[float, str]:
    """The CPU seconds the tree used between two :func:`tree_cpu` readings (processes that
    ended meanwhile count nothing), and which process used most (``pid: seconds``)."""
    import psutil

    used = {pid: t - before.get(pid, 0.0) for pid, t in after.items()}
    top = max(used.items(), key=lambda kv: kv[1], default=(0, 0.0))
    try:
        parent = psutil.Process(top[0]).ppid()
    except psutil.NoSuchProcess:
        parent = 0
    return sum(used.values()), f"{top[0]} (child of {parent}): {top[1]:.2f}"


@dataclass
class LoadOutcome:
    example_seconds: float
    example_ok: bool
    worst: list[Answer] = field(default_factory=list)
    busy_after_deadline_cpu: float = 0.0
    idle_window: float = 0.0
    worst_rows: int = 0
    busiest: str = ""


def pin_attempt(
    server: Server, example: tuple[list[Any], list[Any]], n_worst: int = 4, seed: int = 0
) -> LoadOutcome:
    """Send ``n_worst`` worst-case requests at once, then the Example while they run; wait for
    all, then measure the CPU the server and its processes use over a second and a half."""
    preds, refs = worst_case(seed)
    answers: list[Answer | None] = [None] * n_worst

    def send(i: int) -> None:
        answers[i] = compute(server.port, preds, refs, "nltk")

    threads = [threading.Thread(target=send, args=(i,)) for i in range(n_worst)]
    for t in threads:
        t.start()
    time.sleep(1.0)  # the worst cases are admitted (or refused) and scoring
    example_answer = compute(server.port, example[0], example[1], "nltk")
    for t in threads:
        t.join(6 * LOAD_TIME_LIMIT + 120)
    time.sleep(0.5)
    window = 1.5
    before = tree_cpu(server.proc.pid)
    time.sleep(window)
    used, busiest = cpu_between(before, tree_cpu(server.proc.pid))
    busiest += f" (server {server.proc.pid})"
    return LoadOutcome(
        example_answer.seconds,
        example_answer.ok,
        [a for a in answers if a is not None],
        used,
        window,
        len(preds),
        busiest,
    )


def rss_series(server: Server, calls: int, seed: int = 1, api: str = "compute") -> tuple[float, float, float]:
    """Resident memory (MB) of the server's own process before and after ``calls`` small
    requests of new words (one new session each), and the peak seen."""
    import psutil

    proc = psutil.Process(server.proc.pid)
    rng = random.Random(seed)
    for _ in range(10):  # warm: first sessions, first imports
        compute(server.port, [words(rng, 6)], [[words(rng, 6)]], "nltk", api)
    before = peak = proc.memory_info().rss / 2**20
    for i in range(calls):
        answer = compute(server.port, [words(rng, 6)], [[words(rng, 6), words(rng, 6)]], "nltk", api)
        if not answer.ok:
            raise RuntimeError(f"call {i} failed: {answer.value}")
        if i % 50 == 0:
            peak = max(peak, proc.memory_info().rss / 2**20)
    after = proc.memory_info().rss / 2**20
    return before, after, max(peak, after)
