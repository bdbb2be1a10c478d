"""Start a Streamlit server for a test or a benchmark, and stop it: the one helper that the browser
fixtures, the telemetry test and the benchmarks share."""

from __future__ import annotations

import asyncio
import os
import random
import socket
import subprocess
import sys
import threading
from collections.abc import Coroutine, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from deploy.serve import wait_ready

ROOT = Path(__file__).resolve().parents[1]
T = TypeVar("T")


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_block(n: int) -> int:
    """A port p with p … p+n-1 all free on loopback (a lab of n-1 replicas behind a proxy on p)."""
    for _ in range(200):
        base = random.randint(20_000, 60_000)
        socks: list[socket.socket] = []
        try:
            for p in range(base, base + n):
                s = socket.socket()
                socks.append(s)
                s.bind(("127.0.0.1", p))
            return base
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    raise RuntimeError("no free block of ports")


@contextmanager
def streamlit_server(
    script: str | Path = "app.py",
    *,
    cwd: Path = ROOT,
    env: Mapping[str, str] | None = None,
    args: Sequence[str] = ("--browser.gatherUsageStats", "false"),
    prefix: Sequence[str] = (),
) -> Iterator[str]:
    """Run ``streamlit run script`` on a free loopback port (``prefix``: e.g. ``taskset -c 1``) and
    yield its base URL once healthy; the server is stopped on exit."""
    port = free_port()
    proc = subprocess.Popen(
        [
            *prefix,
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(script),
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--server.headless",
            "true",
            "--server.fileWatcherType",
            "none",
            *args,
        ],
        cwd=cwd,
        env=dict(env if env is not None else os.environ, ATTN_LAB_THREADS="1"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready([f"{url}/_stcore/health"], [proc], timeout_s=90)
        yield url
    finally:
        stop_process(proc)


def stop_process(proc: subprocess.Popen, timeout_s: float = 10) -> None:
    """SIGTERM, then SIGKILL if it has not exited within ``timeout_s``."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()


def run_coroutine(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coroutine)`` in a thread of its own: the browser tests' Playwright (sync API)
    keeps an event loop running in the main thread for the whole session, where asyncio.run refuses."""
    result: dict[str, Any] = {}

    def target() -> None:
        try:
            result["value"] = asyncio.run(coroutine)
        except BaseException as exc:  # noqa: BLE001  (re-raised in the caller's thread)
            result["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in result:
        raise result["error"]
    return result["value"]
