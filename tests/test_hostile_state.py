"""Validated widget state (issue 14): whatever a URL, a stale session, code or a test harness leaves
under a widget's key, every page runs without an exception, draws its main element, and a refused
value falls back to the default with one visible notice (ui.state.url_check / ui.state.checked).

Every view of every page (bench.hostile_state.VIEWS) is first run clean to discover its keys; then
each hostile value of bench.hostile_state.HOSTILE is set on every key at once, rotating the values
so that the runs give every key every value. `python -m bench.hostile_state` runs the full cross
product, one run per (key, value).
"""

from __future__ import annotations

import math

import pytest

from bench.hostile_state import HOSTILE, ROOT, VIEWS, View, discover, failures, rotated, run
from ui.state import accepts, at_most, boolean, labels, many, number_in

pytestmark = pytest.mark.slow  # each test here takes seconds (AppTest page runs, servers or training)

SESSION_NOTICE = "This session's"


def _notices(at) -> list[str]:
    return [n.value for n in at.info if n.value.startswith(SESSION_NOTICE)]


def test_every_page_has_a_view() -> None:
    pages = {"app.py", *(f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py") if p.name != "__init__.py")}
    assert pages <= {view.page for view in VIEWS}


@pytest.mark.parametrize("view", VIEWS, ids=lambda v: v.name)
def test_every_widget_survives_every_hostile_value(view: View) -> None:
    keys = discover(view)
    assert keys
    for shift in range(len(HOSTILE)):
        values = rotated(keys, shift)
        at = run(view, values)
        assert not failures(at, view), (shift, failures(at, view))


@pytest.mark.parametrize("view", VIEWS, ids=lambda v: v.name)
def test_valid_state_is_kept_without_a_notice(view: View) -> None:
    """A rerun keeps every value the first run put in the session state: nothing valid is refused."""
    at = run(view, {})
    chosen = ("s2s_model", "tf_model", "head_model", "gen_model", "tf_kind", "real_scale", "bert_rule", "topic")
    before = {key: at.session_state[key] for key in chosen if key in at.session_state}
    at.run()
    assert not at.exception and not _notices(at), _notices(at)
    assert {key: at.session_state[key] for key in before} == before


@pytest.mark.parametrize(
    "page, key, default",
    [
        ("pages/6_Generation.py", "gen_seed", 0),
        ("pages/7_BERT_masking.py", "bert_seed", 0),
        ("pages/8_Real_model_explorer.py", "real_lines_start", 0),
    ],
)
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_the_reported_number_inputs_fall_back_to_their_default(page: str, key: str, default: int, bad: float):
    at = run(View(page, key), {key: bad})
    assert not at.exception, [e.value for e in at.exception]
    assert at.number_input(key=key).value == default
    assert any(str(bad) in n for n in _notices(at)), _notices(at)


def test_sandbox_padding_input_falls_back():
    at = run(View("pages/1_Attention_from_scratch.py", "sb_pad", {"topic": "Q/K/V sandbox"}), {"sb_pad": math.nan})
    assert not at.exception
    assert at.number_input(key="sb_pad").value == 1
    assert len(_notices(at)) == 1


def test_the_notice_shows_the_value_as_text_never_markup():
    at = run(View("pages/6_Generation.py", "gen_dist"), {"gen_model": "<b>x</b> [link](http://example.com) **y**"})
    (notice,) = _notices(at)
    assert "<b>" not in notice and "](http" not in notice and "**y**" not in notice
    assert at.selectbox(key="gen_model").value == "tf-lm"


def test_accept_rules() -> None:
    seed = number_in(0, 10)
    assert seed.value(3) and not seed.value(3.5) and not seed.value(True) and not seed.value(11)
    assert not any(seed.value(v) for v in (math.nan, math.inf, "3", None, [3]))
    assert seed.url("3") and not seed.url("11")
    alpha = number_in(0.0, 2.0)
    assert alpha.value(0.5) and alpha.value(1) and not alpha.value(math.nan)
    pick = labels(["a", "b"], str.upper)
    assert pick.value("a") and not pick.value("A") and not pick.value(None) and not pick.value(["a"])
    assert pick.url("a") and pick.url("A") and not pick.url("c")  # a value, or an older link's label
    assert labels([1, 2], optional=True).value(None) and not labels([1, 2]).value(True)
    several = many([1, 2, 3])
    assert several.value([1, 3]) and several.value([]) and not several.value([1, 1]) and not several.value([4])
    assert not several.value("13") and not several.value(None)
    text = at_most(5)
    assert text.value("abcde") and not text.value("abcdef") and not text.value(5)
    assert boolean.value(False) and not boolean.value(0) and boolean.url("TRUE") and not boolean.url("1")


def test_accepts_reads_the_widget_arguments() -> None:
    assert accepts("slider", {"min_value": 1, "max_value": 8}).value(8)
    assert not accepts("number_input", {"min_value": 0, "max_value": 5}).value(2.5)
    assert accepts("selectbox", {"options": ["x"], "index": None}).value(None)
    assert not accepts("selectbox", {"options": ["x"]}).value(None)
    assert accepts("segmented_control", {"options": [1]}).value(None)
    assert not accepts("segmented_control", {"options": [1], "required": True}).value(None)
    assert accepts("pills", {"options": [1, 2], "selection_mode": "multi"}).value([2, 1])
    assert not accepts("text_area", {"max_chars": 3}).value("abcd")
    assert accepts("text_input", {}).value("x" * 10_000) and not accepts("text_input", {}).value(None)
    assert accepts("toggle", {}).value(True) and not accepts("toggle", {}).value("true")
