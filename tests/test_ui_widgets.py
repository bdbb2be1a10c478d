"""Shared widgets: the token strip escapes user text; the stepper clamps and steps."""
from streamlit.testing.v1 import AppTest

from tests.conftest import APPTEST_TIMEOUT


def _strip_app():
    from ui.tokens import token_strip

    token_strip(["<b>bold</b>", "<script>alert(1)</script>", "ok"], [True, False, False], highlight=2)


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


def test_landing_page_first_paint_never_imports_torch():
    """The landing page runs without torch (the device label waits until a model page loads it)."""
    import subprocess
    import sys

    from tests.conftest import ROOT

    code = ("import sys\nfrom streamlit.testing.v1 import AppTest\n"
            "at = AppTest.from_file('app.py', default_timeout=60)\nat.run()\n"
            "assert not at.exception, at.exception\n"
            "assert 'torch' not in sys.modules, 'torch imported by the landing page'\n"
            "print([c.value for c in at.sidebar.caption])\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "shown once a model has loaded" in proc.stdout
