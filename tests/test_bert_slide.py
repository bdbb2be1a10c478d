"""Issue 24: a BERT masking view added to the deck presents as on its page. The pieces a student
clicks to mask are in the link (``bert_clicked=2,4``, positions: the same in every language) and an
empty sentence B stays empty (``bert_b=``), on the page and on its slide; the slide draws the page's
predictions, with the same numbers, in English and in 中文. A link's clicks that name no clickable
piece are refused with one notice, on the page and on the slide."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.charts import charts
from tests.conftest import APPTEST_TIMEOUT, ROOT
from ui.bert import BERT_PAIR, clicks_of, clicks_text
from ui.deck import Slide

BERT_PAGE = str(ROOT / "pages" / "7_BERT_masking.py")
PRESENT = str(ROOT / "pages" / "12_Present.py")
# "[CLS] the man went to the store . [SEP]": "man" and "to" clicked, nothing drawn at random, no B.
VIEW = {"bert_b": "", "bert_clicked": "4,2", "bert_draw": "false"}


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    return at


def _page(params: dict[str, str]) -> AppTest:
    at = AppTest.from_file(BERT_PAGE, default_timeout=APPTEST_TIMEOUT)
    for key, value in params.items():
        at.query_params[key] = value
    return _ok(at.run())


def _present(slide: Slide, **query: str) -> AppTest:
    at = AppTest.from_file(PRESENT, default_timeout=APPTEST_TIMEOUT)
    at.session_state["deck_slides"] = [slide]
    for key, value in {"deck": "session", "slide": "1", **query}.items():
        at.query_params[key] = value
    return _ok(at.run())


def _pills(at: AppTest):
    return next(p for p in at.pills if str(p.key).startswith("bert_click_"))


def _figure(at: AppTest, key: str) -> dict:
    return next(c.figure for c in charts(at) if c.key == key)


def _traces(figure: dict) -> list[str]:
    """Every trace of a figure, whole (numbers, labels, colours, hover text): the figure's layout
    (sizes, fonts, the slide's title) is left out, as a slide draws larger for the back row."""
    return [json.dumps(trace, sort_keys=True) for trace in figure["data"]]


def _numbers(figure: dict) -> list[str]:
    """The bars' numbers and the pieces they stand for, nothing in words."""
    return [
        json.dumps({k: trace.get(k) for k in ("x", "y", "orientation")}, sort_keys=True)
        for trace in figure["data"]
        if trace.get("type") == "bar"
    ]


def _panel_titles(figure: dict) -> list[str]:
    """The small multiples' titles: what the model read at each position, in the reader's language."""
    return [a["text"] for a in figure["layout"].get("annotations", [])]


def _texts(at: AppTest) -> str:
    return "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption] + [x.value for x in at.text])


def test_clicks_in_a_link_are_positions_of_clickable_pieces():
    eligible = range(1, 8)
    assert clicks_of("4,2", eligible) == ((2, 4), None)
    assert clicks_of(" 2 , 4,4", eligible) == ((2, 4), None)
    assert clicks_of("", eligible) == ((), None)
    for bad in ("0", "8", "99", "-1", "2,x", "2,", "2.0", "٣", "1" * 5000, "<b>3</b>"):
        assert clicks_of(bad, eligible) == ((), bad), bad
    assert clicks_text([4, 2]) == "2,4" and clicks_text(()) == ""


@pytest.mark.slow
def test_a_link_with_clicks_and_an_empty_b_opens_them_on_the_page():
    at = _page(VIEW)
    assert at.text_input(key="bert_b").value == ""  # not the default B
    assert at.text_input(key="bert_a").value == BERT_PAIR[0]
    assert _pills(at).value == [2, 4]
    assert not any("He bought" in m.value or "bought" in m.value for m in at.markdown)
    assert any("(2 clicked)" in m.value for m in at.markdown)
    assert at.query_params["bert_b"] == "" and at.query_params["bert_clicked"] == "2,4"  # the link keeps them
    rows = _figure(at, "bert_predictions")["data"]
    assert len([tr for tr in rows if tr.get("type") == "bar"]) == 2  # "man" and "to", nothing else


def test_clicks_follow_the_pills_into_the_link():
    at = _page({"bert_draw": "false"})
    assert "bert_clicked" not in at.query_params and "bert_b" not in at.query_params  # the defaults: left out
    _pills(at).set_value([3]).run()
    _ok(at)
    assert at.query_params["bert_clicked"] == "3"
    _pills(at).set_value([]).run()
    assert "bert_clicked" not in at.query_params


def test_a_link_with_clicks_from_another_text_gets_one_notice():
    at = _page({"bert_clicked": "0,99", "bert_draw": "false"})  # [CLS], and beyond the text
    notices = [i.value for i in at.info if "0,99" in i.value]
    assert len(notices) == 1 and "no clicked piece" in notices[0], notices
    assert not _pills(at).value and "bert_clicked" not in at.query_params
    slide = _present(Slide("7_BERT_masking", {"bert_clicked": "0,99"}))  # the slide: the default draw, a note
    assert "0,99" in _texts(slide) and "no clicked piece" in _texts(slide)
    assert any(c.key == "slide_figure" for c in charts(slide))


def test_a_clicked_view_with_an_empty_b_presents_as_on_the_page():
    page = _page(VIEW)
    predicted = _figure(page, "bert_predictions")
    page.button(key="deck_add").click().run()
    _ok(page)
    (slide,) = page.session_state["deck_slides"]
    assert slide.page == "7_BERT_masking"
    assert slide.params["bert_b"] == "" and slide.params["bert_clicked"] == "2,4"
    at = _present(slide)
    shown = _figure(at, "slide_figure")
    assert _traces(shown) == _traces(predicted)  # the same two panels, numbers, pieces and colours
    assert _panel_titles(shown) == _panel_titles(predicted) and all("clicked" in w for w in _panel_titles(shown))
    assert "B: " not in _texts(at) and BERT_PAIR[1] not in _texts(at)  # no sentence B on the slide either


def test_the_slide_draws_the_same_numbers_in_chinese():
    """The view added in English presents in 中文 with the page's numbers; its words are the 中文 page's.
    (The 中文 page is only opened, not clicked: AppTest formats a clicked run's widgets in English.)"""
    page = _page(VIEW)
    page.button(key="deck_add").click().run()
    (slide,) = page.session_state["deck_slides"]
    at = _present(slide, lang="zh")
    shown = _figure(at, "slide_figure")
    assert _numbers(shown) == _numbers(_figure(page, "bert_predictions")) and len(_numbers(shown)) == 2
    zh_page = _page({**VIEW, "lang": "zh"})
    assert _pills(zh_page).value == [2, 4] and zh_page.text_input(key="bert_b").value == ""
    assert _traces(shown) == _traces(_figure(zh_page, "bert_predictions"))
    words = _panel_titles(shown)  # what the model read at each position, in 中文 as on the 中文 page
    assert words == _panel_titles(_figure(zh_page, "bert_predictions"))
    assert words != _panel_titles(_figure(page, "bert_predictions")) and any("点击" in w for w in words), words
