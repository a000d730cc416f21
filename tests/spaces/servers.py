"""Space servers for the tests: each ``spaces/<name>/app.py`` started as ``python app.py`` on a
free loopback port (nothing leaves 127.0.0.1: analytics and the Hub are off, the share tunnel
is never requested), driven over HTTP with ``gradio_client``.

:class:`Servers` starts the apps a test module needs all at once (imports run in parallel) and
any other on first use, so a run selecting one metric's tests starts one server."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
START_TIMEOUT = 240.0  # several servers import gradio at once on a small, shared machine


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def offline_env(port: int, **more: str) -> dict[str, str]:
    env = dict(os.environ)
    # the checkout under test first (`python app.py` puts the app's folder on sys.path, not the
    # checkout's: a copy of the repository must serve its own metricore, not an installed one)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env.update(
        GRADIO_SERVER_NAME=HOST,
        GRADIO_SERVER_PORT=str(port),
        GRADIO_ANALYTICS_ENABLED="False",
        GRADIO_SSR_MODE="False",
        HF_HUB_OFFLINE="1",
        HF_HUB_DISABLE_TELEMETRY="1",
        NO_PROXY=f"{HOST},localhost",
        no_proxy=f"{HOST},localhost",
        PYTHONUNBUFFERED="1",
        **more,
    )
    return env


def wait_ready(url: str, proc: subprocess.Popen, log: Path, deadline: float) -> None:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{url} exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with opener.open(url + "gradio_api/info", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.25)
    raise RuntimeError(f"{url} did not start within {START_TIMEOUT} s:\n{log.read_text()[-3000:]}")


class Servers:
    """``servers[name]`` is a ``gradio_client.Client`` of that app, started on first use."""

    def __init__(self, app_dir: Path = ROOT / "spaces") -> None:
        self.app_dir = app_dir
        self.logs = Path(tempfile.mkdtemp(prefix="metricore-spaces-"))
        self.procs: dict[str, tuple[subprocess.Popen, str, Path]] = {}
        self.clients: dict[str, Any] = {}

    def _spawn(self, name: str) -> None:
        port = free_port()
        log = self.logs / f"{name}.log"
        with open(log, "wb") as out:
            proc = subprocess.Popen(
                [sys.executable, str(self.app_dir / name / "app.py")],
                cwd=ROOT,
                env=offline_env(port),
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        self.procs[name] = (proc, f"http://{HOST}:{port}/", log)

    def start(self, names: list[str]) -> None:
        """Start the apps of ``names`` together and wait until each serves."""
        todo = [n for n in names if n not in self.procs]
        for name in todo:
            self._spawn(name)
        deadline = time.monotonic() + START_TIMEOUT
        for name in todo:
            proc, url, log = self.procs[name]
            wait_ready(url, proc, log, deadline)

    def __getitem__(self, name: str) -> Any:
        import gradio_client

        if name not in self.clients:
            self.start([name])
            self.clients[name] = gradio_client.Client(self.procs[name][1], verbose=False)
        return self.clients[name]

    def url(self, name: str) -> str:
        self[name]
        return self.procs[name][1]

    def stop(self) -> None:
        for proc, _, _ in self.procs.values():
            proc.terminate()
        for proc, _, _ in self.procs.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def needed(request: Any, names: list[str]) -> list[str]:
    """The apps the selected tests of ``request``'s module name (by a ``name`` parameter or in
    their own name), to start together."""
    module = request.module.__name__
    ids = [
        item.nodeid
        for item in request.session.items
        if getattr(item, "module", None) is not None and item.module.__name__ == module
    ]
    return [n for n in names if any(f"[{n}" in i or f"_{n}_" in i or f"-{n}-" in i for i in ids)]
