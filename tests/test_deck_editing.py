"""Decks a teacher prepares: the overview table's edits (titles, notes, order, removal) as
``st.data_editor`` reports them, hostile values included; a ready-made deck copied to edit; speaker
notes shown while presenting only on N; a clicker's third button skipping a slide's remaining steps;
H hiding the rows after the step; the whole deck as one handout; and a deck file with notes read back."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.charts import charts
from tests.conftest import APPTEST_TIMEOUT, ROOT
from ui.deck import MAX_NOTES, MAX_TITLE, Deck, Slide, apply_edits, deck_json, parse_deck, ready_decks

PAGE = str(ROOT / "pages" / "12_Present.py")
SLIDES = [
    Slide("3_Positional_encoding", {}, "one"),
    Slide("5_Inside_one_head", {}, "two"),
    Slide("2_Seq2seq_attention", {"s2s_step": "2"}, "three"),
]


def test_titles_and_notes_are_edited_and_removed_slides_are_gone():
    out = apply_edits(
        SLIDES, {0: {"title": "Sinusoids", "notes": "Ask: why two frequencies?\nThen show 512."}, 1: {"remove": True}}
    )
    assert [s.title for s in out] == ["Sinusoids", "three"]
    assert out[0].notes == "Ask: why two frequencies?\nThen show 512." and out[0].params == {}
    assert out[1].params == {"s2s_step": "2"}


def test_a_slide_given_another_position_moves_there():
    assert [s.title for s in apply_edits(SLIDES, {2: {"position": 1}})] == ["three", "one", "two"]
    assert [s.title for s in apply_edits(SLIDES, {0: {"position": 3}})] == ["two", "three", "one"]
    assert [s.title for s in apply_edits(SLIDES, {0: {"position": 99}})] == ["two", "three", "one"]  # clamped


def test_hostile_edits_change_nothing_they_should_not():
    for edited in (
        None,
        [],
        "x",
        {0: "x"},
        {0: {"position": float("nan")}},
        {0: {"position": "2"}},
        {0: {"position": [1]}},
        {0: {"remove": "yes"}},
        {5: {"title": "x"}},
    ):
        assert apply_edits(SLIDES, edited) == SLIDES, edited
    out = apply_edits(SLIDES, {0: {"title": "a\u202eb" + "x" * 500, "notes": 7}, 1: {"notes": "n\u0000" * 5000}})
    assert out[0].title == "ab" + "x" * (MAX_TITLE - 2) and out[0].notes == ""
    assert len(out[1].notes) == MAX_NOTES and "\u0000" not in out[1].notes
    parse_deck(deck_json(Deck("t", tuple(out))))  # what the table keeps is always a readable deck


def test_a_deck_file_keeps_titles_and_notes():
    deck = Deck("Lecture", (Slide("3_Positional_encoding", {"topic": "rotation"}, "Rotation", "Say: RoPE\nnext"),))
    assert parse_deck(deck_json(deck)) == deck
    assert json.loads(deck_json(deck))["slides"][0]["notes"] == "Say: RoPE\nnext"


def _present(slides: list[Slide], **query: str) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=APPTEST_TIMEOUT)
    at.session_state["deck_slides"] = list(slides)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


@pytest.mark.slow
def test_the_session_deck_is_edited_in_a_table_and_a_ready_deck_is_copied():
    at = _present(SLIDES, deck="session")
    assert not at.exception
    assert at.get("arrow_data_frame") or at.dataframe  # the editable table
    at = AppTest.from_file(PAGE, default_timeout=APPTEST_TIMEOUT).run()
    ready = ready_decks()[at.query_params.get("deck") or "1_teaching_order"]
    at.button(key="present_copy").click().run()
    assert not at.exception
    assert at.session_state["deck_slides"] == list(ready.slides) and at.query_params["deck"] == "session"


def _texts(at: AppTest) -> str:
    return "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption] + [x.value for x in at.text])


@pytest.mark.slow
def test_notes_only_on_request_and_the_third_button_skips_the_slide():
    slides = [Slide("2_Seq2seq_attention", {}, "Decoding", "Point at the diagonal."), Slide("3_Positional_encoding")]
    at = _present(slides, deck="session", slide="1")
    assert not at.exception
    assert "Point at the diagonal." not in _texts(at)  # hidden while presenting
    at.button(key="slide_notes_key").click().run()  # N
    assert "Point at the diagonal." in _texts(at)
    assert at.query_params["step"] == "1"
    at.button(key="slide_skip").click().run()  # "." (a clicker's third button): past every remaining step
    assert not at.exception
    assert at.query_params["slide"] == "2" and "2 / 2" in _texts(at)


@pytest.mark.slow
def test_hiding_what_comes_next_blanks_the_later_rows():
    at = _present([Slide("2_Seq2seq_attention", {"s2s_step": "2"})], deck="session", slide="1")
    full = charts(at)[-1].figure
    at.button(key="slide_hide_key").click().run()  # H
    hidden = charts(at)[-1].figure
    z_full = next(tr["z"] for tr in full["data"] if tr.get("type") == "heatmap")
    z_hidden = next(tr["z"] for tr in hidden["data"] if tr.get("type") == "heatmap")
    from viz_core.export import _decode

    z_full, z_hidden = _decode(z_full), _decode(z_hidden)
    rows = len(z_full)
    assert rows > 2
    assert all(v is not None and v == v for v in list(z_hidden[0]) + list(z_hidden[1]))  # steps 1, 2: shown
    assert all(v is None or v != v for row in list(z_hidden)[2:] for v in row)  # later rows: blank
    assert all(v is not None and v == v for row in z_full for v in row)


@pytest.mark.slow
def test_the_whole_deck_is_one_offline_handout():
    slides = [
        Slide("3_Positional_encoding", {}, "Sinusoids <b>", "Ask about <i>frequencies</i>"),
        Slide("5_Inside_one_head", {}, "One head"),
    ]
    at = _present(slides, deck="session")
    at.button(key="present_handout_make").click().run()
    assert not at.exception
    html = at.session_state["present_handout"][2]
    assert html.count('class="plotly-graph-div"') >= 2  # every slide's figure
    assert "1. Sinusoids &lt;b&gt;" in html and "2. One head" in html
    assert "Ask about &lt;i&gt;frequencies&lt;/i&gt;" in html and "<i>frequencies" not in html
    assert "cdn" not in html.lower().split("<script")[0]  # nothing fetched: plotly.js is inlined


def _data(figure: dict) -> str:
    """A figure's heatmap (its numbers, labels and hover text) and title, without its size and fonts:
    what a slide must share with its page (a slide draws larger, for the back of the room; a page's
    heatmap has an invisible layer of click targets over it)."""
    heat = next(t for t in figure["data"] if t["type"] == "heatmap")
    return json.dumps(
        [
            {k: heat.get(k) for k in ("z", "x", "y", "text", "zmin", "zmax")},
            figure["layout"]["title"]["text"].replace("<br>", " "),
        ],
        sort_keys=True,
    )


@pytest.mark.slow
def test_a_comparison_view_presents_both_models_as_on_the_page():
    params = {"s2s_model": "s2s-luong-dot", "s2s_compare": "s2s-bahdanau", "s2s_step": "3"}
    page = AppTest.from_file(str(ROOT / "pages" / "2_Seq2seq_attention.py"), default_timeout=APPTEST_TIMEOUT)
    for key, value in params.items():
        page.query_params[key] = value
    page.run()
    assert not page.exception
    panes = [c.figure for c in charts(page)][:2]  # the panes (keys cmp_<model>), then the BLEU figure
    assert all(f["data"][0]["type"] == "heatmap" for f in panes)
    at = _present([Slide("2_Seq2seq_attention", params)], deck="session", slide="1")
    assert not at.exception
    slide = [c.figure for c in charts(at) if c.key.startswith("slide_pane_")]
    assert [_data(f) for f in slide] == [_data(f) for f in panes]  # the same two heatmaps at the same step
    assert at.query_params["step"] == "3"
