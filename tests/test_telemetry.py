"""Usage statistics stay off wherever the lab is started (issue 14, "Telemetry depends on the
working directory").

The setting the browser obeys travels in the first message of every script run (NewSession's
``config.gather_usage_stats``); the frontend starts its metrics only when it is true. Streamlit
1.67 reads ``.streamlit/config.toml`` beside the main script as well as the one in the working
directory, so the repository's file holds from any folder. ``st.set_option`` inside app.py
would not do: it runs after the first session's NewSession message has gone out.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.sync.client import connect

from tests.conftest import ROOT
from tests.server import streamlit_server

pytestmark = pytest.mark.slow  # starts a Streamlit server


def _first_session_config(port: int) -> ForwardMsg:
    """Open the app's websocket as a browser does, ask for a run, return the NewSession message."""
    with connect(
        f"ws://127.0.0.1:{port}/_stcore/stream", subprotocols=["streamlit"], max_size=None, open_timeout=30
    ) as ws:
        rerun = BackMsg()
        rerun.rerun_script.query_string = ""
        ws.send(rerun.SerializeToString())
        deadline = time.time() + 90
        while time.time() < deadline:
            msg = ForwardMsg()
            msg.ParseFromString(ws.recv(timeout=90))
            if msg.WhichOneof("type") == "new_session":
                return msg
    raise AssertionError("no NewSession message within 90 s")


def test_usage_stats_are_off_when_started_from_another_folder(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "elsewhere"
    (home / ".streamlit").mkdir(parents=True)
    cwd.mkdir()
    # A user-wide config that turns them on: the lab's own setting must still win.
    (home / ".streamlit" / "config.toml").write_text("[browser]\ngatherUsageStats = true\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("STREAMLIT_")}
    env.update(HOME=str(home), ATTN_LAB_THREADS="1")
    with streamlit_server(ROOT / "app.py", cwd=cwd, env=env, args=()) as url:
        port = int(url.rsplit(":", 1)[1])
        for _ in range(2):  # the first session of a fresh server, and a later one
            assert _first_session_config(port).new_session.config.gather_usage_stats is False
