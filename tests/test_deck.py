"""The deck file format (ui.deck): a round trip keeps every slide, page, value and title; every kind
of bad file is refused with one clear DeckError sentence, never another exception; the shipped
ready-made decks parse and every page of the lab has a slide renderer."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import ROOT

from ui.deck import (
    FORMAT,
    MAX_BYTES,
    MAX_SLIDES,
    MAX_TITLE,
    MAX_VALUE,
    VERSION,
    Deck,
    DeckError,
    Slide,
    deck_json,
    parse_deck,
    ready_decks,
    slide_pages,
    url_name,
)

PAGES = ("2_Seq2seq_attention", "4_Transformer_translation")


def _deck(*slides: dict, **top) -> str:
    return json.dumps({"format": FORMAT, "version": VERSION, "title": "T", "slides": list(slides), **top})


def _one(**slide) -> str:
    return _deck({"page": "2_Seq2seq_attention", "params": {}, **slide})


def test_round_trip_keeps_everything():
    deck = Deck(
        "Lecture 3 · 注意力 ✓",
        (
            Slide(
                "2_Seq2seq_attention",
                {"s2s_model": "Luong dot", "s2s_step": "3", "s2s_text": "the red car\nis small . 中文 👩‍🏫"},
                "First",
            ),
            Slide("4_Transformer_translation", {"tf_head": "average over heads", "multi": ["a", "b"]}),
        ),
    )
    text = deck_json(deck)
    assert parse_deck(text, PAGES) == deck
    assert parse_deck(text.encode("utf-8"), PAGES) == deck
    assert parse_deck(b"\xef\xbb\xbf" + text.encode("utf-8"), PAGES) == deck  # a BOM from an editor
    assert "注意力" in text  # readable, not \\u-escaped


def test_url_name_is_accepted_for_a_page():
    deck = parse_deck(_deck({"page": "Seq2seq_attention"}), PAGES)
    assert deck.slides[0].page == "2_Seq2seq_attention" and deck.slides[0].params == {}
    assert url_name("2_Seq2seq_attention") == "Seq2seq_attention"


@pytest.mark.parametrize(
    "data, words",
    [
        (b"\xff\xfe not utf-8", "not UTF-8"),
        ("{not json", "not valid JSON"),
        ("", "not valid JSON"),
        ("[" * 100_000 + "]" * 100_000, "nests too deeply"),
        (json.dumps([1, 2]), "not an Attention Lab deck"),
        (json.dumps({"format": "pptx", "version": 1, "slides": []}), "not an Attention Lab deck"),
        (_one().replace('"version": 1', '"version": 2'), "version “2” is not supported"),
        (_deck({"page": "2_Seq2seq_attention"}).replace('"version": 1', '"version": true'), "not supported"),
        (_deck({"page": "2_Seq2seq_attention"}).replace('"version": 1', '"version": "1"'), "not supported"),
        (_deck(extra=1), "unknown field “extra”"),
        (_deck(), "no slides"),
        (json.dumps({"format": FORMAT, "version": 1, "slides": {"page": "x"}}), "no slides"),
        (_deck(*[{"page": "2_Seq2seq_attention"}] * (MAX_SLIDES + 1)), f"at most {MAX_SLIDES}"),
        (_deck("just text"), "Slide 1 must be an object"),
        (_deck({"params": {}}), "Slide 1 names no page"),
        (_deck({"page": "2_Seq2seq_attention"}, {"page": "12_Present"}), "Slide 2's page “12_Present” is not a page"),
        (_deck({"page": "../../etc/passwd"}), "is not a page"),
        (_deck({"page": 2}), "must be text, not int"),
        (_one(params=["s2s_step", "3"]), "params must be an object"),
        (_one(params={"s2s_step": 3}), "param “s2s_step” must be text, not int"),
        (_one(params={"s2s_step": None}), "must be text, not NoneType"),
        (_one(params={"s2s_step": {"x": "1"}}), "must be text, not dict"),
        (_one(params={"s2s_step": ["1", 2]}), "must be text, not int"),
        (_one(params={"bad key!": "1"}), "not a widget key"),
        (_one(params={"k" * 65: "1"}), "not a widget key"),
        (_one(params={f"k{i}": "1" for i in range(65)}), "65 params"),
        (_one(params={"s2s_text": "x" * (MAX_VALUE + 1)}), f"at most {MAX_VALUE:,}"),
        (_one(params={"s2s_text": "abc\u202edcba"}), "U+202E"),
        (_one(params={"s2s_text": "a\u0000b"}), "U+0000"),
        (_one(params={"s2s_text": "a\ud800b"}), "U+D800"),
        (_one(params={"s2s_text": "a\ue000b"}), "U+E000"),
        (_one(title="x" * (MAX_TITLE + 1)), f"at most {MAX_TITLE}"),
        (_one(title="evil\u2066title"), "U+2066"),
        (_one(title="zero\u200bwidth"), "U+200B"),
        (_deck({"page": "2_Seq2seq_attention"}, title=7), "title must be text"),
        (_one(speaker="x"), "unknown field “speaker”"),
        (_one(notes="x" * 2_001), "at most 2,000"),
        (_one(params={"a": "1"}).replace('"params": {"a": "1"}', '"params": {"a": "1", "a": "2"}'), "appears twice"),
        (_one(params={"a": "1"}).replace('"1"', "NaN"), "NaN is not a number"),
        (_one(params={"a": "1"}).replace('"1"', "Infinity"), "Infinity is not a number"),
        ("x" * (MAX_BYTES + 1), f"at most {MAX_BYTES:,}"),
    ],
)
def test_bad_files_are_refused_with_a_clear_message(data, words):
    with pytest.raises(DeckError) as caught:
        parse_deck(data, PAGES)
    assert words in str(caught.value)
    assert str(caught.value).endswith(".")  # one sentence, never a traceback's repr
    assert caught.value.say("en") == str(caught.value)
    zh = caught.value.say("zh")  # the same sentence in 中文, its place in the file said in 中文 too
    assert re.search(r"[\u4e00-\u9fff]", zh) and zh.endswith("。") and not re.search(r"Slide|The deck|'s ", zh), zh


def test_text_values_keep_newlines_tabs_and_joiners():
    text = "line 1\n\tline 2\r\n👩‍🏫 z\u200cw"  # newline, tab, emoji joined by U+200D, a ZWNJ
    assert parse_deck(_one(params={"s2s_text": text}), PAGES).slides[0].params["s2s_text"] == text


def test_shipped_decks_parse_and_follow_the_teaching_order():
    decks = ready_decks()
    assert decks, "no ready-made deck is shipped in ui/decks/"
    teaching = next(d for d in decks.values() if len(d.slides) >= 10)
    pages = [s.page for s in teaching.slides]
    order = [
        "2_Seq2seq_attention",
        "4_Transformer_translation",
        "5_Inside_one_head",
        "3_Positional_encoding",
        "7_BERT_masking",
        "6_Generation",
        "8_Real_model_explorer",
    ]
    assert [p for i, p in enumerate(pages) if p not in pages[:i]] == order
    assert teaching.slides[0].params["s2s_model"] == "s2s-none"  # a value, the same in every language
    for deck in decks.values():
        assert parse_deck(deck_json(deck)) == deck


def test_every_page_has_a_slide_renderer():
    from ui.slides import RENDERERS, SlideProblem, prepare

    pages = {path.stem for path in (ROOT / "pages").glob("[0-9]*.py")} - {"12_Present"}
    assert pages == set(RENDERERS) == set(slide_pages())  # a new page needs its slide too
    with pytest.raises(SlideProblem, match="cannot be shown as a slide"):  # a page without one: a message
        prepare("no_such_page", {})
