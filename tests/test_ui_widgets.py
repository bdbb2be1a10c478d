"""Shared widgets: the token strip escapes user text; the stepper clamps and steps."""

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import APPTEST_TIMEOUT


def _strip_app():
    from ui.tokens import token_strip

    token_strip(["<b>bold</b>", "<script>alert(1)</script>", "ok"], [True, False, False], highlight=2)


@pytest.mark.slow
def test_token_strip_escapes_html_and_marks_unknown():
    at = AppTest.from_function(_strip_app, default_timeout=APPTEST_TIMEOUT).run()
    (html,) = at.get("html")
    body = html.proto.body
    assert "<b>" not in body and "<script>" not in body
    assert "&lt;b&gt;bold&lt;/b&gt; ⚠" in body and "&lt;script&gt;" in body
    assert body.count("⚠") == 1


def _stepper_app():
    import streamlit as st

    from ui.stepper import step_control

    st.session_state["shown"] = step_control(st.session_state.get("n", 4), key="demo")


def test_step_control_moves_and_clamps():
    at = AppTest.from_function(_stepper_app, default_timeout=APPTEST_TIMEOUT).run()
    assert at.session_state["shown"] == 0 and at.button(key="demo_prev").disabled
    for _ in range(3):
        at.button(key="demo_next").click().run()
    assert at.session_state["shown"] == 3 and at.button(key="demo_next").disabled
    at.slider(key="demo_step").set_value(2).run()
    assert at.session_state["shown"] == 1
    at.session_state["n"] = 1  # a shorter trace: the step is clamped
    at.run()
    assert at.session_state["shown"] == 0


@pytest.mark.slow
def test_landing_page_first_paint_never_imports_torch():
    """The landing page runs without torch (the device label waits until a model page loads it)."""
    import subprocess
    import sys

    from tests.conftest import ROOT

    code = (
        "import sys\nfrom streamlit.testing.v1 import AppTest\n"
        "at = AppTest.from_file('app.py', default_timeout=60)\nat.run()\n"
        "assert not at.exception, at.exception\n"
        "assert 'torch' not in sys.modules, 'torch imported by the landing page'\n"
        "print([c.value for c in at.sidebar.caption])\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "shown once a model has loaded" in proc.stdout


def _cached_twice() -> None:
    import streamlit as st

    from ui.i18n import spinning

    @st.cache_data(show_spinner=False)
    @spinning("spin.compute")
    def square(x: int) -> int:
        st.session_state["computed"] = st.session_state.get("computed", 0) + 1
        return x * x

    spinners = st.session_state.setdefault("spinners", [])
    real = st.spinner
    st.spinner = lambda text, **kw: spinners.append(text) or real(text, **kw)
    try:
        st.write(square(3), square(3), square(4))
    finally:
        st.spinner = real


def test_a_cached_call_spins_only_when_the_cache_misses():
    """@st.cache_data above @spinning: the language's spinner runs for the two misses, not the hit
    (around a hit it would start a timer thread and send a message to clear itself)."""
    at = AppTest.from_function(_cached_twice, default_timeout=APPTEST_TIMEOUT).run()
    assert not at.exception
    assert at.session_state["computed"] == 2 and len(at.session_state["spinners"]) == 2


def test_every_spinning_cache_spins_inside_the_cache():
    """Every @spinning in ui/ sits under a cache decorator, so that it spins only on a miss."""
    import ast
    from pathlib import Path

    found = 0
    for path in Path(__file__).resolve().parents[1].joinpath("ui").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef):
                names = [ast.unparse(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list]
                if "spinning" in names:
                    found += 1
                    i = names.index("spinning")
                    # ui.checkpoints.cached_loader is st.cache_resource with a bound (and a release on delete)
                    assert i > 0 and (names[i - 1].startswith("st.cache_") or names[i - 1] == "cached_loader"), (
                        path.name,
                        node.name,
                        names,
                    )
    assert found >= 10
    import inspect

    from ui.checkpoints import cached_loader

    assert "st.cache_resource(" in inspect.getsource(cached_loader)
