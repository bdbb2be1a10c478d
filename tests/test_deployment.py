"""The classroom deployment, brought up for real on loopback: ``python -m deploy.serve --replicas 2``
starts two Streamlit replicas behind Debian's nginx (no root: nginx runs with ``-p`` in a temp
dir). Sessions opened through the proxy must stay on their replica: the page, its assets, its
health check and its websocket; and a reconnecting tab must find its session again."""

from __future__ import annotations

import os
import queue
import signal
import re
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench.load_test import StreamlitSession
from deploy.serve import find_nginx
from tests.conftest import ROOT
from tests.server import free_block, run_coroutine

pytestmark = pytest.mark.slow  # each test here takes seconds (AppTest page runs, servers or training)

COOKIE = "attention_lab_replica"
REPLICA_HEADER = "x-attention-lab-replica"


@dataclass
class Lab:
    proc: subprocess.Popen
    port: int
    run_dir: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    if find_nginx() is None:
        pytest.fail("nginx is missing: bash scripts/setup_tests.sh installs Debian's nginx-light")
    port = free_block(3)
    run_dir = tmp_path_factory.mktemp("lab")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "deploy.serve",
            "--address",
            "127.0.0.1",
            "--port",
            str(port),
            "--replicas",
            "2",
            "--run-dir",
            str(run_dir),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
    seen = []
    deadline = time.monotonic() + 240
    try:
        while not any("ready on" in line for line in seen):
            try:
                seen.append(lines.get(timeout=max(0.1, deadline - time.monotonic())))
            except queue.Empty:
                pytest.fail(f"deploy.serve not ready in 240 s: {''.join(seen)}")
            if proc.poll() is not None and lines.empty():
                pytest.fail(f"deploy.serve exited: {''.join(seen)}")
        yield Lab(proc, port, run_dir)
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=30)


def _get(url: str, cookie: str | None = None) -> tuple[int, dict[str, list[str]], bytes]:
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never a proxy
    with opener.open(request, timeout=30) as response:
        headers: dict[str, list[str]] = {}
        for k, v in response.headers.items():
            headers.setdefault(k.lower(), []).append(v)
        return response.status, headers, response.read()


def _children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    return out


def _open_session(url: str, cookie: str, resume: str = "") -> tuple[str, str, list[str]]:
    """Through the proxy: open the websocket with ``cookie``, run the landing page; returns
    (replica that answered the websocket handshake, session id, errors)."""

    async def go() -> tuple[str, str, list[str]]:
        session = StreamlitSession(url, cookie)
        await session.connect(resume)
        try:
            run = await session.open_page("")
            errors = run.errors + ([] if run.server_s == run.server_s else ["no script_finished"])
            return session.response_headers.get(REPLICA_HEADER, ""), session.session_id, errors
        finally:
            await session.close()

    return run_coroutine(go())


def test_replicas_run_with_classroom_settings(lab: Lab) -> None:
    commands = {}
    for pid in _children(lab.proc.pid):
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        commands[pid] = (
            [c.decode() for c in cmd if c],
            {e.decode().partition("=")[0]: e.decode().partition("=")[2] for e in env if e},
        )
    replicas = [(cmd, env) for cmd, env in commands.values() if "streamlit" in cmd]
    assert len(replicas) == 2 and sum("nginx" in cmd[0] for cmd, _ in commands.values()) == 1
    ports = set()
    for cmd, env in replicas:
        flags = dict(zip(cmd, cmd[1:]))
        assert flags["--server.address"] == "127.0.0.1"  # only nginx faces the network
        assert flags["--browser.gatherUsageStats"] == "false" and flags["--server.headless"] == "true"
        assert flags["--server.fileWatcherType"] == "none"
        assert env["ATTENTION_LAB_MODEL_FOLDERS"] == "confined"
        ports.add(int(flags["--server.port"]))
    assert ports == {lab.port + 1, lab.port + 2}
    assert _get(f"{lab.url}/nginx-health")[2] == b"ok\n"


def test_sessions_stay_on_their_replica(lab: Lab) -> None:
    sessions: dict[str, list[tuple[str, str]]] = {}  # replica -> [(cookie, session id)]
    for _ in range(40):  # fresh browsers until each replica holds two sessions (2^-38 odds of failing)
        status, headers, body = _get(f"{lab.url}/")  # no cookie yet: the proxy picks a replica and says so
        assert status == 200 and b"<html" in body.lower()
        replica = headers[REPLICA_HEADER][0]
        set_cookie = [c for c in headers.get("set-cookie", []) if c.startswith(f"{COOKIE}=")]
        assert len(set_cookie) == 1 and "HttpOnly" in set_cookie[0]
        cookie = set_cookie[0].split(";")[0]

        asset = re.search(rb'src="\.?/?(static/[^"]+\.js)"', body)
        assert asset, "the page names its script"
        for path in (asset.group(1).decode(), "_stcore/health"):  # the same browser's next requests
            status, again, content = _get(f"{lab.url}/{path}", cookie)
            assert status == 200 and again[REPLICA_HEADER] == [replica], path
            assert not any(c.startswith(f"{COOKIE}=") for c in again.get("set-cookie", []))
        assert content == b"ok"

        ws_replica, session_id, errors = _open_session(lab.url, cookie)
        assert ws_replica == replica and session_id and not errors
        sessions.setdefault(replica, []).append((cookie, session_id))
        if len(sessions) == 2 and all(len(v) >= 2 for v in sessions.values()):
            break
    assert len(sessions) == 2 and all(len(v) >= 2 for v in sessions.values()), sessions

    # A tab that lost its connection reconnects with its session id: its own replica still holds
    # the session (same id back); sent to the other replica (the other replica's cookie) it is not.
    (mine, others) = sessions.values()
    cookie, session_id = mine[0]
    replica, resumed, errors = _open_session(lab.url, cookie, resume=session_id)
    assert not errors and resumed == session_id
    elsewhere, fresh, errors = _open_session(lab.url, others[0][0], resume=session_id)
    assert not errors and elsewhere != replica and fresh != session_id


def _replicas(lab: Lab) -> dict[int, int]:
    """{port: pid} of the lab's Streamlit replicas."""
    out = {}
    for pid in _children(lab.proc.pid):
        try:
            args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"streamlit" in args:
            out[int(args[args.index(b"--server.port") + 1])] = pid
    return out


def test_a_killed_replica_is_started_again_and_its_students_reach_the_other(lab: Lab) -> None:
    """Issue 25: killing one of 2 replicas stopped the whole lab. Now every student, whichever replica
    their cookie chose, opens the page through the proxy (the live replica answers), and the dead one
    is started again on its port."""
    before = _replicas(lab)
    assert len(before) == 2
    port, pid = min(before.items())
    os.kill(pid, signal.SIGKILL)
    cookies = [f"{COOKIE}=student-{i}" for i in range(6)]  # spread over both replicas by the sticky hash
    deadline = time.monotonic() + 60
    for cookie in cookies:
        while True:
            try:
                _, _, errors = _open_session(lab.url, cookie)
                if not errors:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, f"{cookie} found no live replica"
            time.sleep(0.5)
    assert lab.proc.poll() is None  # the lab kept running
    deadline = time.monotonic() + 180
    while True:
        again = _replicas(lab).get(port)
        if again not in (None, pid):
            try:
                if _get(f"http://127.0.0.1:{port}/_stcore/health")[0] == 200:
                    break
            except OSError:
                pass
        assert time.monotonic() < deadline, "the killed replica was not started again"
        time.sleep(1)


def test_stopping_stops_every_part(lab: Lab) -> None:
    children = _children(lab.proc.pid)
    assert len(children) == 3
    lab.proc.terminate()
    assert lab.proc.wait(timeout=30) == 0
    assert not [
        pid
        for pid in children
        if Path(f"/proc/{pid}").exists()
        and "Z" not in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    ]
    with pytest.raises(OSError):
        _get(f"{lab.url}/nginx-health")
