"""Load test of one Attention Lab server, driven over its websocket the way a browser drives it.

    python -m bench.load_test --sessions 30 --duration 120 [--heavy] [--after 60] [--json out.json]
    python -m bench.load_test --sessions 10 --pages seq2seq [--training]   (issue 12: stepping while one trains)

It starts ``streamlit run app.py`` itself with the classroom settings (deploy.serve), pinned to CPU
1 with ``taskset -c 1``, and runs every simulated student in this process pinned to CPU 0, so the
clients never steal the server's core (a browser-based test on the same cores measured the
browsers). Loopback only; at most 100 sessions and 600 s.

A simulated student does what the page's JavaScript does: it opens ``/_stcore/stream`` (subprotocol
``streamlit``), sends ``BackMsg.rerun_script`` with the page's name and query string, reads the
``ForwardMsg`` stream (new_session, deltas, script_finished), and on each interaction sends another
``rerun_script`` carrying its widget states (a button's trigger, a slider's value, a selectbox's
label) and the fragment id of the widget, as the frontend does for a widget inside ``st.fragment``.
The widget ids are read from the deltas, never guessed. Each student loops: open the seq2seq page
and step through it (Next, back to step 1 at the end), then open the Transformer page and step
and change the head, with a think time between interactions. ``--heavy`` adds one more student
who keeps asking the Real model explorer for a fresh 512-token text (a new shared link each time).
``--training`` adds a teacher who presses Train on the Training studio's default preset first, and
the report says how far that run trained under the load; ``--pages seq2seq`` keeps the students on
the seq2seq page.

Per interaction it prints p50/p95 of: the first message (the page starts to change), the server
time (``script_finished``: the server is done), and the final message of the run; errors
(exception elements, page-not-found, timeouts, dropped connections); and the server's RSS before
(warm: after one session visited every page), peak during, and ``--after`` seconds after every
session closed, plus the CPU each side used. Before the load, one session alone measures the
server CPU of each interaction: the cost that decides how many students one core can serve.
The websocket client is the ``websockets`` package, which Streamlit itself depends on.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import ClientConnection, connect
from websockets.typing import Subprotocol

from deploy.serve import ROOT, classroom_env, streamlit_command, wait_ready
from models.training.runs import RUNS_ENV
from tests.server import free_port, stop_process

MAX_SESSIONS, MAX_DURATION_S = 100, 600
RUN_TIMEOUT_S = 120.0  # one run that takes longer counts as an error
HEAVY_CACHED = 3  # 512-token traces the Real model explorer keeps (ui.bert.real_trace's max_entries)
_ID_PREFIX = "$$ID-"  # Streamlit's keyed widget ids: "$$ID-<hash>-<user key>"
_DONE = {
    ForwardMsg.FINISHED_SUCCESSFULLY,
    ForwardMsg.FINISHED_WITH_COMPILE_ERROR,
    ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY,
}  # FINISHED_EARLY_FOR_RERUN: another run follows


class ProtocolError(RuntimeError):
    """The server answered in a way a browser could not use (no such widget, page not found)."""


@dataclass
class Run:
    """One interaction as the client saw it (seconds from sending the BackMsg)."""

    interaction: str
    first_s: float = float("nan")
    server_s: float = float("nan")
    final_s: float = float("nan")
    messages: int = 0
    bytes: int = 0
    errors: list[str] = field(default_factory=list)


@dataclass
class Widget:
    """A keyed widget as the last delta described it."""

    id: str
    element_type: str  # the Element oneof: button, slider, selectbox, radio, ...
    proto: object
    fragment_id: str


class StreamlitSession:
    """One browser tab: a websocket to ``/_stcore/stream`` and the state its frontend would keep."""

    def __init__(self, base_url: str, cookie: str | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.cookie = cookie
        self.ws: ClientConnection | None = None
        self.response_headers: dict[str, str] = {}
        self.pages: dict[str, str] = {}  # url_pathname -> page_script_hash (from the navigation message)
        self.page_hash = ""
        self.widgets: dict[str, Widget] = {}  # user key -> widget
        self._states: dict[str, WidgetState] = {}  # widget id -> the value this tab holds
        self._cached: set[str] = set()  # hashes of cacheable messages the tab has seen
        self.session_id = ""
        self.alerts: list[str] = []  # every st.info/warning/error body drawn, even one cleared later

    async def connect(self, resume: str = "") -> None:
        """Open the websocket; ``resume`` is the id of a session to reconnect to, as a tab that lost
        its connection sends it (the second entry, the XSRF token, only matters for logged-in users)."""
        url = "ws" + self.base_url[len("http") :] + "/_stcore/stream"
        headers = {"Cookie": self.cookie} if self.cookie else {}
        protocols = [Subprotocol(p) for p in (["streamlit", "xsrf", resume] if resume else ["streamlit"])]
        self.ws = await connect(
            url,
            subprotocols=protocols,
            origin=self.base_url,
            additional_headers=headers,
            max_size=None,
            proxy=None,
            open_timeout=30,
        )
        self.response_headers = {k.lower(): v for k, v in self.ws.response.headers.raw_items()}

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()

    async def open_page(self, page: str, query: dict[str, str] | None = None) -> Run:
        """Load a page by its URL name ('' = the landing page), as a page link or the address bar does."""
        self.widgets.clear()
        self._states.clear()
        self.page_hash = self.pages.get(page, "")
        return await self._rerun(f"open {page or 'home'}", page_name=page, query=urllib.parse.urlencode(query or {}))

    async def click(self, key: str, interaction: str) -> Run:
        """Press the button with this key (a one-shot trigger, as the frontend sends it)."""
        widget = self._widget(key)
        state = WidgetState(id=widget.id, trigger_value=True)
        return await self._rerun(interaction, changed=state, fragment_id=widget.fragment_id, one_shot=True)

    async def set_value(self, key: str, value: float | str, interaction: str) -> Run:
        """Set a slider (number) or a selectbox/radio (option label) to ``value``."""
        widget = self._widget(key)
        state = WidgetState(id=widget.id)
        if widget.element_type == "slider":
            state.double_array_value.data.append(float(value))
        elif widget.element_type in ("selectbox", "radio"):
            state.string_value = str(value)
        else:
            raise ProtocolError(f"setting a {widget.element_type} is not simulated")
        return await self._rerun(interaction, changed=state, fragment_id=widget.fragment_id)

    def selected(self, key: str) -> str:
        """A selectbox's current label: the one this tab set, else the server's value, else its default."""
        widget = self._widget(key)
        held = self._states.get(widget.id)
        if held is not None and held.HasField("string_value"):
            return held.string_value
        if widget.proto.HasField("raw_value"):
            return widget.proto.raw_value
        return widget.proto.options[widget.proto.default if widget.proto.HasField("default") else 0]

    def _widget(self, key: str) -> Widget:
        if key not in self.widgets:
            raise ProtocolError(f"no widget {key!r} on the page")
        return self.widgets[key]

    async def _rerun(
        self,
        interaction: str,
        page_name: str = "",
        query: str = "",
        changed: WidgetState | None = None,
        fragment_id: str = "",
        one_shot: bool = False,
    ) -> Run:
        assert self.ws is not None, "connect() first"
        msg = BackMsg()
        rerun = msg.rerun_script
        rerun.query_string, rerun.page_script_hash, rerun.page_name = query, self.page_hash, page_name
        rerun.fragment_id = fragment_id
        rerun.cached_message_hashes.extend(sorted(self._cached))
        rerun.context_info.timezone, rerun.context_info.locale = "UTC", "en-US"
        rerun.context_info.url = f"{self.base_url}/{page_name}" + (f"?{query}" if query else "")
        states = dict(self._states)
        if changed is not None:
            states[changed.id] = changed
            if not one_shot:
                self._states[changed.id] = changed
        rerun.widget_states.widgets.extend(states.values())
        run = Run(interaction)
        t0 = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        try:
            await asyncio.wait_for(self._read_run(run, t0), RUN_TIMEOUT_S)
        except TimeoutError:
            run.errors.append(f"timeout: no script_finished in {RUN_TIMEOUT_S:.0f} s")
        return run

    async def _read_run(self, run: Run, t0: float) -> None:
        """Read ForwardMsgs until the run's script_finished, then what follows it within 0.2 s."""
        assert self.ws is not None
        finished = False
        while True:
            try:
                data = await (asyncio.wait_for(self.ws.recv(), 0.2) if finished else self.ws.recv())
            except TimeoutError:
                return
            now = time.perf_counter() - t0
            run.messages += 1
            run.bytes += len(data)
            run.final_s = now
            fwd = ForwardMsg()
            fwd.ParseFromString(data)
            msg_type = fwd.WhichOneof("type")
            if fwd.metadata.cacheable and fwd.hash:
                self._cached.add(fwd.hash)
            if msg_type == "delta" and run.first_s != run.first_s:  # first delta (NaN until then)
                run.first_s = now
            if msg_type == "new_session":
                self.session_id = fwd.new_session.initialize.session_id
            elif msg_type == "navigation":  # the page list and the page now shown, as the sidebar gets them
                self.pages = {p.url_pathname: p.page_script_hash for p in fwd.navigation.app_pages}
                self.page_hash = fwd.navigation.page_script_hash
            elif msg_type == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                self._note_element(fwd.delta.new_element, fwd.delta.fragment_id, run)
            elif msg_type == "page_not_found":
                run.errors.append(f"page not found: {fwd.page_not_found.page_name}")
            elif msg_type == "script_finished" and fwd.script_finished in _DONE and not finished:
                finished, run.server_s = True, now

    def _note_element(self, element: object, fragment_id: str, run: Run) -> None:
        element_type = element.WhichOneof("type")
        if element_type is None:
            return
        if element_type == "exception":
            run.errors.append(f"exception: {element.exception.type}: {element.exception.message[:200]}")
            return
        if element_type == "alert":
            self.alerts.append(element.alert.body)
        widget_id = getattr(getattr(element, element_type), "id", "")
        if isinstance(widget_id, str) and widget_id.startswith(_ID_PREFIX):
            key = widget_id[len(_ID_PREFIX) :].split("-", 1)[1]
            self.widgets[key] = Widget(widget_id, element_type, getattr(element, element_type), fragment_id)


# ------------------------------------------------------------------------------------------
# What a student does
# ------------------------------------------------------------------------------------------

SEQ2SEQ, TRANSFORMER, REAL, STUDIO = (
    "Seq2seq_attention",
    "Transformer_translation",
    "Real_model_explorer",
    "Training_studio",
)


async def _step(session: StreamlitSession, prefix: str, interaction: str) -> Run:
    """Next ▶ until the last step, then the slider back to step 1 (a student rereading)."""
    nxt = session.widgets.get(f"{prefix}_next")
    if nxt is not None and not nxt.proto.disabled:
        return await session.click(f"{prefix}_next", interaction)
    return await session.set_value(f"{prefix}_step", 1, interaction)


async def _next_head(session: StreamlitSession) -> Run:
    options = list(session._widget("tf_head").proto.options)
    current = session.selected("tf_head")
    following = options[(options.index(current) + 1) % len(options)] if current in options else options[0]
    return await session.set_value("tf_head", following, "transformer: change head")


async def student(
    base_url: str,
    until: float,
    think: tuple[float, float],
    steps: int,
    out: list[Run],
    rng: random.Random,
    transformer: bool = True,
) -> None:
    """Loop over the two pages (or the seq2seq page alone) until ``until``: open, then ``steps``
    interactions with think time."""
    session = StreamlitSession(base_url)
    try:
        await session.connect()
        while time.monotonic() < until:
            out.append(await session.open_page(SEQ2SEQ))
            for _ in range(steps):
                if time.monotonic() >= until:
                    break
                await asyncio.sleep(rng.uniform(*think))
                out.append(await _step(session, "s2s", "seq2seq: step"))
            if time.monotonic() >= until or not transformer:
                continue
            out.append(await session.open_page(TRANSFORMER))
            for i in range(steps):
                if time.monotonic() >= until:
                    break
                await asyncio.sleep(rng.uniform(*think))
                out.append(await (_next_head(session) if i % 3 == 2 else _step(session, "tf", "transformer: step")))
    except Exception as exc:  # noqa: BLE001  (every failure is a counted error)
        out.append(Run("session", errors=[f"{type(exc).__name__}: {exc}"]))
    finally:
        await session.close()


async def trainer(base_url: str, until: float, out: list[Run]) -> None:
    """A teacher who opens the Training studio and presses Train on its default preset (the quick
    Bahdanau model on the grammar), then leaves the run to train in the server's background."""
    session = StreamlitSession(base_url)
    try:
        await session.connect()
        out.append(await session.open_page(STUDIO))
        out.append(await session.click("studio_train", "studio: train"))
        await asyncio.sleep(max(0.0, until - time.monotonic()))
    except Exception as exc:  # noqa: BLE001
        out.append(Run("session", errors=[f"{type(exc).__name__}: {exc}"]))
    finally:
        await session.close()


def training_progress(runs_root: Path) -> dict[str, object]:
    """The studio runs the server trained during the test: their status and last step (run.json,
    log.jsonl), to show that the training went on under the load."""
    found = {}
    for log in sorted(runs_root.glob("*/log.jsonl")):
        lines = log.read_text(encoding="utf-8").splitlines()
        meta_file = log.parent / "run.json"
        meta = json.loads(meta_file.read_text(encoding="utf-8")) if meta_file.exists() else {}
        found[log.parent.name] = {
            "status": meta.get("status", "running"),
            "last_step": json.loads(lines[-1]).get("step") if lines else 0,
        }
    return found


def long_text(i: int, n_words: int = 600) -> str:
    """A fresh text of well over 512 WordPiece tokens (``i`` makes it a cache miss)."""
    words = (
        "the animal didn't cross the street because it was too tired and the trophy would not fit "
        "in the brown suitcase because it was too big"
    ).split()
    return f"Request {i}: " + " ".join(words[k % len(words)] for k in range(n_words))


async def heavy_student(base_url: str, until: float, out: list[Run]) -> None:
    """One student after another opening a 512-token Real model explorer link, back to back."""
    i = 0
    while time.monotonic() < until:
        session = StreamlitSession(base_url)
        try:
            await session.connect()
            out.append(await session.open_page(REAL, {"real_text": long_text(i), "real_max": "512"}))
        except Exception as exc:  # noqa: BLE001
            out.append(Run("session", errors=[f"{type(exc).__name__}: {exc}"]))
        finally:
            await session.close()
        i += 1
        await asyncio.sleep(1.0)


# ------------------------------------------------------------------------------------------
# The server and its measurements
# ------------------------------------------------------------------------------------------


def rss_mb(pid: int) -> float:
    """Resident memory of a process, from /proc/<pid>/status (VmRSS, kB)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise ProcessLookupError(pid)


def cpu_s(pid: int | None = None) -> float:
    """User + system CPU seconds of a process (/proc/<pid>/stat fields 14–15)."""
    fields = Path(f"/proc/{pid or os.getpid()}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_server(port: int, cpu: int | None, runs_root: Path | None = None) -> subprocess.Popen:
    """The app under test with the classroom settings, pinned to ``cpu`` (None: not pinned), healthy;
    its studio runs under ``runs_root`` when given."""
    env = classroom_env("confined")
    env.setdefault("ATTN_LAB_THREADS", "1")
    if runs_root is not None:
        env[RUNS_ENV] = str(runs_root)
    pin = [] if cpu is None else ["taskset", "-c", str(cpu)]
    proc = subprocess.Popen(
        [*pin, *streamlit_command("127.0.0.1", port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_ready([f"http://127.0.0.1:{port}/_stcore/health"], [proc], timeout_s=120)
    except RuntimeError:
        proc.kill()
        raise
    return proc


async def sample_rss(pid: int, samples: list[tuple[float, float]], stop: asyncio.Event) -> None:
    while not stop.is_set():
        samples.append((time.monotonic(), rss_mb(pid)))
        try:
            await asyncio.wait_for(stop.wait(), 0.5)
        except TimeoutError:
            pass


async def warm_up(base_url: str, server_pid: int, heavy: bool, steps: int = 6) -> dict[str, float]:
    """One session alone visits every page of the test (with ``heavy``, the Real model explorer with
    :data:`HEAVY_CACHED` different texts: its bounded trace cache full), so 'before' is the warm
    server in its steady state; on the way,
    the server CPU of each interaction (ms, median) when nothing else runs: the cost that sets how
    many students one core can serve. A page that fails here stops the test with its error."""
    session = StreamlitSession(base_url)
    await session.connect()
    cpu_ms: dict[str, list[float]] = defaultdict(list)

    async def checked(action) -> Run:
        run = await action
        if run.errors:  # a broken page is reported as such, not as a missing widget later
            raise ProtocolError(f"warm-up {run.interaction}: {'; '.join(run.errors)}")
        return run

    async def timed(action) -> None:
        before = cpu_s(server_pid)
        run = await checked(action)
        cpu_ms[run.interaction].append((cpu_s(server_pid) - before) * 1e3)

    try:
        await checked(session.open_page(SEQ2SEQ))  # cold: loads the models, not counted
        await timed(session.open_page(SEQ2SEQ))
        for _ in range(steps):
            await timed(_step(session, "s2s", "seq2seq: step"))
        await checked(session.open_page(TRANSFORMER))
        await timed(session.open_page(TRANSFORMER))
        for i in range(steps):
            await timed(_next_head(session) if i % 3 == 2 else _step(session, "tf", "transformer: step"))
        for i in range(HEAVY_CACHED if heavy else 0):  # the real-model trace cache at its bound: its steady state
            await timed(session.open_page(REAL, {"real_text": long_text(-1 - i), "real_max": "512"}))
        return {interaction: round(statistics.median(v)) for interaction, v in cpu_ms.items()}
    finally:
        await session.close()


def _pct(values: list[float], q: float) -> float:
    values = sorted(v for v in values if v == v)
    if not values:
        return float("nan")
    return values[min(len(values) - 1, max(0, round(q * (len(values) - 1))))]


def summarize(runs: list[Run]) -> dict[str, dict[str, float]]:
    """Per interaction kind: count, errors, p50/p95 of first, server and final times."""
    by_interaction: dict[str, list[Run]] = defaultdict(list)
    for r in runs:
        by_interaction[r.interaction].append(r)
    table = {}
    for interaction, rs in sorted(by_interaction.items()):
        row: dict[str, float] = {
            "n": len(rs),
            "errors": sum(len(r.errors) for r in rs),
            "kB_p50": statistics.median(r.bytes for r in rs) / 1e3,
        }
        for what in ("first", "server", "final"):
            vals = [getattr(r, f"{what}_s") for r in rs]
            row[f"{what}_p50"], row[f"{what}_p95"] = _pct(vals, 0.5), _pct(vals, 0.95)
        table[interaction] = row
    return table


async def main_async(args: argparse.Namespace) -> dict:
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    runs_root = Path(tempfile.mkdtemp(prefix="load-test-runs-"))
    server = start_server(port, args.server_cpu, runs_root)
    try:
        report: dict = {
            "sessions": args.sessions,
            "duration_s": args.duration,
            "heavy": args.heavy,
            "training": args.training,
            "pages": args.pages,
            "server_cpu": args.server_cpu,
            "client_cpu": args.client_cpu,
        }
        report["rss_cold_mb"] = rss_mb(server.pid)
        report["load_average_at_start"] = os.getloadavg()  # others' work on this machine skews every time
        report["cpu_ms_alone"] = await warm_up(base_url, server.pid, args.heavy)
        await asyncio.sleep(3)
        report["rss_before_mb"] = rss_mb(server.pid)
        server_cpu0, client_cpu0, t0 = cpu_s(server.pid), cpu_s(), time.monotonic()

        samples: list[tuple[float, float]] = []
        stop = asyncio.Event()
        sampler = asyncio.create_task(sample_rss(server.pid, samples, stop))
        until = time.monotonic() + args.duration
        runs: list[Run] = []
        rng = random.Random(args.seed)
        tasks = []
        if args.training:
            tasks.append(asyncio.create_task(trainer(base_url, until, runs)))
        for _ in range(args.sessions):  # staggered arrival, as a class opening the link
            tasks.append(
                asyncio.create_task(
                    student(
                        base_url,
                        until,
                        (args.think_min, args.think_max),
                        args.steps,
                        runs,
                        random.Random(rng.random()),
                        args.pages == "both",
                    )
                )
            )
            await asyncio.sleep(args.ramp / max(1, args.sessions))
        if args.heavy:
            tasks.append(asyncio.create_task(heavy_student(base_url, until, runs)))
        await asyncio.gather(*tasks)
        load_wall = time.monotonic() - t0
        report["load_wall_s"] = round(load_wall, 1)
        report["server_cpu_s"] = round(cpu_s(server.pid) - server_cpu0, 1)
        report["client_cpu_s"] = round(cpu_s() - client_cpu0, 1)
        report["load_average_at_end"] = os.getloadavg()
        report["rss_peak_mb"] = max(mb for _, mb in samples)
        closed = time.monotonic()
        await asyncio.sleep(args.after)
        stop.set()
        await sampler
        report["rss_after_mb"] = rss_mb(server.pid)
        report["rss_60s_after_mb"] = min(samples, key=lambda tm: abs(tm[0] - closed - 60))[1]
        report["rss_after_s"] = round(time.monotonic() - closed)
        report["rss_after_vs_before"] = round(report["rss_after_mb"] / report["rss_before_mb"] - 1, 3)
        report["interactions"] = summarize(runs)
        report["studio_runs"] = training_progress(runs_root)
        report["errors"] = sum(len(r.errors) for r in runs)
        report["error_examples"] = sorted({e for r in runs for e in r.errors})[:10]
        return report
    finally:
        stop_process(server, 15)
        shutil.rmtree(runs_root, ignore_errors=True)


def print_report(report: dict) -> None:
    print(
        f"{report['sessions']} sessions on {report['pages']} for {report['duration_s']} s"
        f"{' + one 512-token real-model student' if report['heavy'] else ''}"
        f"{' + one studio training' if report['training'] else ''}; server on CPU {report['server_cpu']}, "
        f"clients on CPU {report['client_cpu']}"
    )
    print(f"server CPU per interaction, one session alone (ms): {report['cpu_ms_alone']}")
    head = (
        f"{'interaction':28} {'n':>5} {'err':>4} {'first p50/p95':>15} {'server p50/p95':>15} "
        f"{'final p50/p95':>15} {'kB p50':>7}"
    )
    print(head)
    for interaction, r in report["interactions"].items():
        print(
            f"{interaction:28} {r['n']:5d} {r['errors']:4d} {r['first_p50']:7.3f}/{r['first_p95']:<7.3f} "
            f"{r['server_p50']:7.3f}/{r['server_p95']:<7.3f} {r['final_p50']:7.3f}/{r['final_p95']:<7.3f} "
            f"{r['kB_p50']:7.1f}"
        )
    if report["training"]:
        print(f"studio runs trained during the load: {report['studio_runs'] or 'none (the training did not start)'}")
    print(f"errors: {report['errors']} {report['error_examples'] if report['errors'] else ''}")
    print(
        f"server RSS (MB): cold {report['rss_cold_mb']:.0f}, before {report['rss_before_mb']:.0f}, "
        f"peak {report['rss_peak_mb']:.0f}, {report['rss_after_s']} s after close {report['rss_after_mb']:.0f} "
        f"({report['rss_after_vs_before']:+.1%} vs before; {report['rss_60s_after_mb']:.0f} at 60 s)"
    )
    n_runs = sum(r["n"] for r in report["interactions"].values())
    print(
        f"CPU over the {report['load_wall_s']} s of load: server {report['server_cpu_s']} s "
        f"({report['server_cpu_s'] / max(1, n_runs) * 1e3:.0f} ms per interaction), "
        f"clients {report['client_cpu_s']} s; "
        f"machine load average {report['load_average_at_start'][0]:.1f} at start, "
        f"{report['load_average_at_end'][0]:.1f} at end (other work on these cores)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.load_test", description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--duration", type=float, default=120, help="seconds of load")
    parser.add_argument("--heavy", action="store_true", help="one student keeps asking for 512-token real-model runs")
    parser.add_argument(
        "--training",
        action="store_true",
        help="a teacher starts the studio's default training before the students arrive",
    )
    parser.add_argument(
        "--pages",
        choices=("both", "seq2seq"),
        default="both",
        help="the students step through the seq2seq and Transformer pages, or the seq2seq page only",
    )
    parser.add_argument("--steps", type=int, default=8, help="interactions per page visit")
    parser.add_argument("--think-min", type=float, default=2.0)
    parser.add_argument("--think-max", type=float, default=6.0)
    parser.add_argument("--ramp", type=float, default=10.0, help="seconds over which the sessions arrive")
    parser.add_argument("--after", type=float, default=60.0, help="seconds after closing before the last RSS")
    parser.add_argument("--server-cpu", type=int, default=1)
    parser.add_argument("--client-cpu", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="also write the report here")
    args = parser.parse_args(argv)
    if not 1 <= args.sessions <= MAX_SESSIONS or not 0 < args.duration <= MAX_DURATION_S:
        parser.error(f"--sessions must be 1–{MAX_SESSIONS} and --duration 0–{MAX_DURATION_S} s")
    if not 0 < args.think_min <= args.think_max or args.after < 0:
        parser.error("think times must be positive (min ≤ max) and --after ≥ 0")
    os.sched_setaffinity(0, {args.client_cpu})
    try:
        report = asyncio.run(main_async(args))
    except (ProtocolError, RuntimeError, OSError) as exc:
        print(f"The load test could not run: {exc}", file=sys.stderr)
        return 2
    print_report(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 1 if report["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
