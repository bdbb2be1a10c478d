"""Start Attention Lab for a class: ``python -m deploy.serve --address 0.0.0.0 --port 8501 [--replicas N]``.

Classroom settings, whatever directory it is started from: local model folders confined to the
configured roots (``ATTENTION_LAB_MODEL_FOLDERS=confined``), usage statistics off, headless, no
file watcher, no run-on-save. With one replica Streamlit itself listens on the address and port.
With ``--replicas N`` (N ≥ 2) N Streamlit servers listen on 127.0.0.1 at port+1 … port+N and
Debian's nginx listens on the address and port as a reverse proxy with sticky sessions (see
deploy/nginx.conf.template). It prints one "ready" line once every replica answers
``/_stcore/health`` and the proxy answers ``/nginx-health``; it stops everything on Ctrl-C or
SIGTERM. A replica that dies is started again (its students reconnect to a live one through nginx,
starting a new session: what they had typed or picked is lost, their runs and decks are not); the lab
stops (exit 1) when nginx dies or a replica keeps dying.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = Path(__file__).with_name("nginx.conf.template")
READY_TIMEOUT_S = 120.0


#: seconds a closed tab's session is kept for it to reconnect (Streamlit's default: 120): a tab that lost
#: its connection for a moment comes back within it; after it, the session's state and files are freed
SESSION_TTL_S = 20
#: glibc's allocator, set for a server of many threads: two heap arenas instead of 8 per core, and
#: blocks of 1 MB and more mapped on their own (a fixed threshold), so that memory freed after the
#: sessions close goes back to the system instead of staying in per-thread arenas
MALLOC_ENV = {"MALLOC_ARENA_MAX": "2", "MALLOC_MMAP_THRESHOLD_": str(1 << 20)}


def classroom_env(model_folders: str, base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of every replica: the classroom's model-folder setting and allocator settings
    (:data:`MALLOC_ENV`, unless ``base`` sets them) on top of ``base``."""
    env = dict(os.environ if base is None else base)
    env["ATTENTION_LAB_MODEL_FOLDERS"] = model_folders
    for key, value in MALLOC_ENV.items():
        env.setdefault(key, value)
    return env


def streamlit_command(address: str, port: int) -> list[str]:
    """``streamlit run app.py`` with the classroom flags (flags, not .streamlit/config.toml, so they
    hold wherever the command is started), closed sessions freed after :data:`SESSION_TTL_S`."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(ROOT / "app.py"),
        "--server.address",
        address,
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--server.fileWatcherType",
        "none",
        "--server.runOnSave",
        "false",
        "--browser.gatherUsageStats",
        "false",
        "--global.developmentMode",
        "false",
        "--server.disconnectedSessionTTL",
        str(SESSION_TTL_S),
        "--client.showErrorDetails",
        "none",
        # no full collection after every script run: it was 25% of a click's server time with 30 students
        # (Python's own generational collection still runs; ui.heap freezes the imported modules and the
        # session reaper collects what closed tabs leave)
        "--runner.postScriptGC",
        "false",
    ]


#: a replica that dies is started again at once; one that died this many times in RESTART_WINDOW_S is
#: broken (a bad install, a port taken): the lab stops and says so rather than restart it forever
MAX_RESTARTS, RESTART_WINDOW_S = 5, 60.0


def supervise(
    procs: list[subprocess.Popen],
    ports: list[int],
    proxy: subprocess.Popen | None,
    start_replica: Callable[[int], subprocess.Popen],
) -> int:
    """Keep the lab up: a replica that exits is started again on its port (nginx sends its students to
    the live replicas meanwhile; they reconnect and start a new session there). Returns 1 when the
    proxy dies or a replica keeps dying (:data:`MAX_RESTARTS` in :data:`RESTART_WINDOW_S`)."""
    deaths: dict[int, list[float]] = {port: [] for port in ports}
    while True:
        time.sleep(1)
        if proxy is not None and proxy.poll() is not None:
            print(f"{_name(proxy)} exited with status {proxy.returncode}: stopping the lab", file=sys.stderr)
            return 1
        for i, port in enumerate(ports):
            replica = procs[i]
            if replica.poll() is None:
                continue
            now = time.monotonic()
            deaths[port] = [t for t in deaths[port] if now - t < RESTART_WINDOW_S] + [now]
            if len(deaths[port]) > MAX_RESTARTS:
                print(
                    f"the replica on port {port} died {len(deaths[port])} times in {RESTART_WINDOW_S:.0f} s: "
                    "stopping the lab",
                    file=sys.stderr,
                )
                return 1
            print(
                f"the replica on port {port} exited with status {replica.returncode}: starting it again",
                file=sys.stderr,
                flush=True,
            )
            procs[i] = start_replica(port)


def nginx_config(listen: str, replica_ports: list[int], run_dir: Path) -> str:
    """deploy/nginx.conf.template filled in: listen on ``listen`` (address:port), proxy to the replicas."""
    servers = "\n".join(f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=5s;" for p in replica_ports)
    text = TEMPLATE.read_text(encoding="utf-8")
    return text.replace("@RUN_DIR@", str(run_dir)).replace("@LISTEN@", listen).replace("@SERVERS@", servers)


def find_nginx(name: str = "nginx") -> str | None:
    """The nginx binary: on PATH, or in /usr/sbin where Debian puts it (not on a user's PATH)."""
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")


def _listen(address: str, port: int) -> str:
    return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def wait_ready(urls: list[str], procs: list[subprocess.Popen], timeout_s: float = READY_TIMEOUT_S) -> None:
    """Poll every URL until it answers 200; fail early when a process has already exited."""
    deadline = time.monotonic() + timeout_s
    pending = list(urls)
    while pending:
        dead = [p for p in procs if p.poll() is not None]
        if dead:
            raise RuntimeError(f"{_name(dead[0])} exited with status {dead[0].returncode} while starting")
        if time.monotonic() > deadline:
            raise RuntimeError(f"not ready after {timeout_s:.0f} s: {pending[0]}")
        pending = [u for u in pending if not _answers(u)]
        if pending:
            time.sleep(0.5)


def _name(proc: subprocess.Popen) -> str:
    """'nginx' or 'the replica on port N', for messages."""
    args = [str(a) for a in proc.args]
    return f"the replica on port {args[args.index('--server.port') + 1]}" if "--server.port" in args else "nginx"


def _stop(procs: list[subprocess.Popen]) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second SIGTERM must not cut the shutdown short
    for p in procs:
        if p.poll() is None:
            p.terminate()
    for p in procs:
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deploy.serve", description=__doc__.splitlines()[0])
    parser.add_argument("--address", default="127.0.0.1", help="address to listen on (0.0.0.0: every interface)")
    parser.add_argument("--port", type=int, default=8501)
    parser.add_argument("--replicas", type=int, default=1, help="Streamlit servers; ≥ 2 puts nginx in front")
    parser.add_argument(
        "--model-folders",
        choices=["confined", "off"],
        default="confined",
        help="the local model-folder loader: confined to the configured roots, or off",
    )
    parser.add_argument("--run-dir", type=Path, help="where logs, nginx.conf and pid go (default: a new temp dir)")
    parser.add_argument("--nginx", default="nginx", help="the nginx binary (Debian: apt-get install nginx-light)")
    args = parser.parse_args(argv)
    if not 1 <= args.replicas <= 16 or not 1 <= args.port <= 65535 - args.replicas:
        parser.error("--replicas must be 1–16 and the ports port … port+replicas must exist")
    nginx = find_nginx(args.nginx) if args.replicas > 1 else None
    if args.replicas > 1 and nginx is None:
        parser.error(f"--replicas {args.replicas} needs nginx ({args.nginx!r} not found): apt-get install nginx-light")

    run_dir = (args.run_dir or Path(tempfile.mkdtemp(prefix="attention-lab-"))).resolve()
    run_dir.mkdir(parents=True, exist_ok=True)
    run_dir.chmod(0o755)  # nginx's workers (another user when started as root) make their temp dirs here
    env = classroom_env(args.model_folders)
    if args.replicas == 1:
        ports, host = [args.port], args.address
    else:
        ports, host = [args.port + i for i in range(1, args.replicas + 1)], "127.0.0.1"

    procs: list[subprocess.Popen] = []

    def on_signal(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)

    def start_replica(port: int) -> subprocess.Popen:
        log = open(run_dir / f"replica-{port}.log", "ab")  # noqa: SIM115  (the child keeps it)
        return subprocess.Popen(streamlit_command(host, port), cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)

    try:
        for port in ports:
            procs.append(start_replica(port))
        probe = "127.0.0.1" if host in ("0.0.0.0", "::") else host
        wait_ready([f"http://{_listen(probe, p)}/_stcore/health" for p in ports], procs)
        proxy = None
        if nginx:
            conf = run_dir / "nginx.conf"
            conf.write_text(nginx_config(_listen(args.address, args.port), ports, run_dir), encoding="utf-8")
            proxy = subprocess.Popen(
                [nginx, "-p", str(run_dir), "-c", str(conf), "-e", str(run_dir / "error.log"), "-g", "daemon off;"]
            )
            procs.append(proxy)
            probe = "127.0.0.1" if args.address in ("0.0.0.0", "::") else args.address
            wait_ready([f"http://{_listen(probe, args.port)}/nginx-health"], procs, timeout_s=20)
        print(
            f"Attention Lab ready on http://{_listen(args.address, args.port)} "
            f"({args.replicas} replica{'s' * (args.replicas > 1)}; logs in {run_dir})",
            flush=True,
        )
        return supervise(procs, ports, proxy, start_replica)
    except KeyboardInterrupt:
        return 0
    except RuntimeError as exc:
        print(f"Attention Lab did not start: {exc} (logs in {run_dir})", file=sys.stderr)
        return 1
    finally:
        _stop(procs)


if __name__ == "__main__":
    sys.exit(main())
