"""Start a Streamlit server for a test or a benchmark, and stop it: the one helper that the browser
fixtures, the telemetry test and the benchmarks share."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen | None = None, timeout_s: float = 90) -> None:
    """Poll ``url``/_stcore/health until it answers 200 (raise when the server died or time ran out)."""
    deadline = time.time() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        if time.time() > deadline or (proc is not None and proc.poll() is not None):
            raise RuntimeError(f"the Streamlit server at {url} did not become healthy")
        time.sleep(0.5)


@contextmanager
def streamlit_server(script: str | Path = "app.py", *, cwd: Path = ROOT, env: Mapping[str, str] | None = None,
                     args: Sequence[str] = ("--browser.gatherUsageStats", "false"),
                     prefix: Sequence[str] = ()) -> Iterator[str]:
    """Run ``streamlit run script`` on a free loopback port (``prefix``: e.g. ``taskset -c 1``) and
    yield its base URL once healthy; the server is stopped on exit."""
    port = free_port()
    proc = subprocess.Popen(
        [*prefix, sys.executable, "-m", "streamlit", "run", str(script), "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true", "--server.fileWatcherType", "none", *args],
        cwd=cwd, env=dict(env if env is not None else os.environ, ATTN_LAB_THREADS="1"),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
